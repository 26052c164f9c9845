// Concurrency: many runs at once on one worker (default worker options, as `durable-agent worker` runs) against one
// run alone, same script and latency; single and batch alternate, medians compared.
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { childrenCpuMs, processCpuMs } from './cpu.js';
import type { DurableEnv } from './durable-env.js';
import { readScript, writeReadFiles } from './durable-scripts.js';
import type { ChartedRows } from './chart.js';
import type { BenchRow } from './measure.js';
import { formatMs, median, pairedRange } from './measure.js';

export interface ConcurrencySizes {
  runs: number;
  steps: number;
  latencyMs: number;
  repetitions: number;
}

/** Wall time of `runs` concurrent runs ÷ one run. */
export async function benchConcurrency(env: DurableEnv, sizes: ConcurrencySizes): Promise<ChartedRows> {
  const workspace = await env.tempDirectory('concurrency');
  await writeReadFiles(workspace);
  const worker = await env.startWorker();
  const options = { script: readScript(sizes.steps), workspace, maxSteps: sizes.steps, latencyMs: sizes.latencyMs };
  const single = async (): Promise<number> => (await env.runToEnd(worker, { ...options, label: 'single' })).ms;
  let slowest = 0;
  // CPU of the batches: this process (worker, model servers, client) and its children (the dev server).
  const cpu = { bench: 0, server: 0, serverKnown: true };
  const batch = async (): Promise<number> => {
    const [benchBefore, serverBefore] = [processCpuMs(), childrenCpuMs()];
    const started = performance.now();
    const runs = await Promise.all(
      Array.from({ length: sizes.runs }, (_, index) => env.runToEnd(worker, { ...options, label: `batch-${index}` })),
    );
    const ms = performance.now() - started;
    const serverAfter = childrenCpuMs();
    cpu.bench += processCpuMs() - benchBefore;
    if (serverBefore === undefined || serverAfter === undefined) cpu.serverKnown = false;
    else cpu.server += serverAfter - serverBefore;
    slowest = Math.max(slowest, ...runs.map((run) => run.ms));
    return ms;
  };
  await single(); // warm-up: the worker's first workflow task and connections
  const singles: number[] = [];
  const batches: number[] = [];
  for (let repetition = 0; repetition < sizes.repetitions; repetition++) {
    if (repetition % 2 === 0) {
      singles.push(await single());
      batches.push(await batch());
    } else {
      batches.push(await batch());
      singles.push(await single());
    }
  }
  const ratio = median(batches) / median(singles);
  const steps = sizes.repetitions * sizes.runs * sizes.steps;
  const cpuText = cpu.serverKnown
    ? `${formatMs(cpu.bench / steps)} of CPU in this process (worker, model servers, client) and ${formatMs(cpu.server / steps)} in the dev server`
    : `${formatMs(cpu.bench / steps)} of CPU in this process (worker, model servers, client; the dev server's is not readable here)`;
  const batchCpu = cpu.bench + (cpu.serverKnown ? cpu.server : 0);
  const busy = batchCpu / batches.reduce((sum, ms) => sum + ms, 0);
  // A batch cannot end before its CPU time spread over every core: the ratio this machine allows at the step's cost,
  // and the cost a step would need for the target.
  const cores = os.cpus().length;
  const cpuBound = batchCpu / sizes.repetitions / cores / median(singles);
  const targetStepCpu = (1.5 * median(singles) * cores) / (sizes.runs * sizes.steps);
  const row: BenchRow = {
    measurement: `Concurrency, ${sizes.steps} steps at ${sizes.latencyMs} ms: ${sizes.runs} runs at once on one worker ÷ one run`,
    ours: formatMs(median(batches)),
    baseline: formatMs(median(singles)),
    ratio,
    ratioRange: pairedRange(batches, singles),
    conclusion:
      `${ratio <= 1.5 ? 'within' : 'over'} the 1.5× target: ${sizes.runs} runs finish ${ratio.toFixed(2)}× as late as one ` +
      `(slowest single run of a batch ${formatMs(slowest)}; medians of ${sizes.repetitions} alternated repetitions, ` +
      `${sizes.runs * sizes.steps} model calls and ${sizes.runs * (sizes.steps - 1)} tool calls a batch). A step costs ` +
      `${cpuText}; the batches kept ${busy.toFixed(2)} cores busy on average (the machine has ${cores}, ` +
      `load average ${os.loadavg()[0]!.toFixed(2)} as they ended). ` +
      (cpu.serverKnown
        ? `Their CPU alone, spread over ${cores} cores, takes ${cpuBound.toFixed(2)}× one run: the 1.5× target needs a ` +
          `step to cost at most ${formatMs(targetStepCpu)} of CPU in all here, server included; it costs ` +
          `${formatMs(batchCpu / steps)}.`
        : ''),
  };
  return { rows: [row], bars: [{ label: `${sizes.runs} runs at once ÷ 1 run`, value: ratio, target: 1.5 }] };
}
