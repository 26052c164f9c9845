// CPU time of this process and of its child processes (the Temporal dev server), to tell a run that waits from one
// that computes.
import fs from 'node:fs';

/** CPU milliseconds (user and system) this process has used so far. */
export function processCpuMs(): number {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1000;
}

// /proc/<pid>/stat counts in clock ticks, 100 a second on Linux unless the kernel was built otherwise.
const MS_PER_TICK = 10;

/** CPU milliseconds the running children of this process have used so far; undefined without Linux's /proc. */
export function childrenCpuMs(): number | undefined {
  let names: string[];
  try {
    names = fs.readdirSync('/proc');
  } catch {
    return undefined;
  }
  let total = 0;
  for (const name of names) {
    if (!/^\d+$/.test(name)) continue;
    let stat: string;
    try {
      stat = fs.readFileSync(`/proc/${name}/stat`, 'utf8');
    } catch {
      continue; // exited since the listing
    }
    // The command name may hold spaces and parentheses; the fields after its closing parenthesis do not.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(fields[1]) !== process.pid) continue;
    total += (Number(fields[11]) + Number(fields[12])) * MS_PER_TICK;
  }
  return total;
}
