// The machine a benchmark ran on, as the report states it: absolute numbers only mean something next to it.
import os from 'node:os';

/** CPU model, cores, memory, Node version and OS, in one line. */
export function describeMachine(): string {
  const cpus = os.cpus();
  const model = cpus[0]?.model.replace(/\s+/g, ' ').trim() ?? 'unknown CPU';
  const memory = (os.totalmem() / 1024 ** 3).toFixed(1);
  return `${model}, ${cpus.length} cores, ${memory} GiB memory, Node ${process.version}, ${os.type()} ${os.release()}`;
}

/** The 1, 5 and 15 minute load averages, e.g. "1.20 0.98 0.75". */
export function loadAverage(): string {
  return os
    .loadavg()
    .map((load) => load.toFixed(2))
    .join(' ');
}
