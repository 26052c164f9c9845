// Concurrency: many runs at once on one worker (default worker options, as `durable-agent worker` runs) against one
// run alone, same script and latency; single and batch alternate, medians compared. The same is measured for the
// Temporal floor (temporal-floor.ts), workflows of the same step shape with no agent code on the same server, in
// repetitions taken in turn with the agent's.
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { childrenCpuMs, processCpuMs } from './cpu.js';
import type { DurableEnv } from './durable-env.js';
import { FILE_BYTES, readScript, writeReadFiles } from './durable-scripts.js';
import type { ChartedRows } from './chart.js';
import type { BenchRow } from './measure.js';
import { formatMs, median, pairedRange } from './measure.js';
import { startTemporalFloor } from './temporal-floor.js';

export interface ConcurrencySizes {
  runs: number;
  steps: number;
  latencyMs: number;
  repetitions: number;
}

/** One run to the end, labelled; resolves to its wall time. */
type RunOnce = (label: string) => Promise<number>;

interface Batches {
  singles: number[];
  batches: number[];
  /** The slowest run of any batch. */
  slowest: number;
  /** CPU of the batches: this process and its children (the dev server); undefined without Linux's /proc. */
  cpu: { bench: number; server: number | undefined };
}

/** Wall time of `runs` concurrent runs ÷ one run, for the agent and for the Temporal floor. */
export async function benchConcurrency(env: DurableEnv, sizes: ConcurrencySizes): Promise<ChartedRows> {
  const workspace = await env.tempDirectory('concurrency');
  await writeReadFiles(workspace);
  const worker = await env.startWorker();
  const options = { script: readScript(sizes.steps), workspace, maxSteps: sizes.steps, latencyMs: sizes.latencyMs };
  const floorRun = await startTemporalFloor(env, workspace);
  const { agent, floor } = await measureSideBySide(sizes, {
    agent: async (label) => (await env.runToEnd(worker, { ...options, label })).ms,
    floor: (label) => floorRun({ steps: sizes.steps, latencyMs: sizes.latencyMs, label }),
  });

  const agentRatio = median(agent.batches) / median(agent.singles);
  const floorRatio = median(floor.batches) / median(floor.singles);
  const steps = sizes.repetitions * sizes.runs * sizes.steps;
  const work = `${sizes.runs * sizes.steps} model calls and ${sizes.runs * (sizes.steps - 1)} file reads a batch`;
  const rows: BenchRow[] = [
    {
      measurement: `Concurrency, ${sizes.steps} steps at ${sizes.latencyMs} ms: ${sizes.runs} runs at once on one worker ÷ one run`,
      ours: formatMs(median(agent.batches)),
      baseline: formatMs(median(agent.singles)),
      ratio: agentRatio,
      ratioRange: pairedRange(agent.batches, agent.singles),
      conclusion:
        `${agentRatio <= 1.5 ? 'within' : 'over'} the 1.5× target: ${sizes.runs} runs finish ${agentRatio.toFixed(2)}× ` +
        `as late as one (slowest single run of a batch ${formatMs(agent.slowest)}; medians of ${sizes.repetitions} ` +
        `alternated repetitions, ${work}). ${cpuText(agent, 'worker, model servers, client', steps, sizes)} ` +
        `The Temporal floor below, the same step shape with no agent code, is ${floorRatio.toFixed(2)}× on the same ` +
        `server: ours is ${(agentRatio / floorRatio).toFixed(2)}× its ratio (target ≤ 1.15×). ` +
        stepCpuComparison(agent, floor, steps),
    },
    {
      measurement: `Temporal floor, ${sizes.steps} steps at ${sizes.latencyMs} ms: ${sizes.runs} workflows at once ÷ one`,
      ours: formatMs(median(floor.batches)),
      baseline: formatMs(median(floor.singles)),
      ratio: floorRatio,
      ratioRange: pairedRange(floor.batches, floor.singles),
      conclusion:
        `what Temporal alone costs here: a step is an activity streaming the same scripted turn from the same model ` +
        `server through the openai client (${sizes.latencyMs} ms), an upsert of three search attributes and a local ` +
        `activity reading a ${FILE_BYTES / 1024} KB file, on a worker with default options (slowest single run of a ` +
        `batch ${formatMs(floor.slowest)}; ${work}). ` +
        cpuText(floor, 'worker, client', steps, sizes),
    },
  ];
  return {
    rows,
    bars: [
      { label: `${sizes.runs} runs at once ÷ 1 run`, value: agentRatio, target: 1.5 },
      { label: `Temporal floor: ${sizes.runs} at once ÷ 1`, value: floorRatio, target: 1.5 },
    ],
  };
}

/**
 * The agent's and the floor's singles and batches, repetition by repetition, each repetition in the other order than
 * the last: a machine that grows slower or faster over the minutes this takes moves both alike.
 */
async function measureSideBySide(
  sizes: ConcurrencySizes,
  runs: { agent: RunOnce; floor: RunOnce },
): Promise<{ agent: Batches; floor: Batches }> {
  const fresh = (): Batches => ({ singles: [], batches: [], slowest: 0, cpu: { bench: 0, server: 0 } });
  const measured = { agent: fresh(), floor: fresh() };
  // The workers' first workflow tasks and connections.
  await runs.agent('warm-up');
  await runs.floor('warm-up');
  for (let repetition = 0; repetition < sizes.repetitions; repetition++) {
    const order = repetition % 2 === 0 ? (['agent', 'floor'] as const) : (['floor', 'agent'] as const);
    for (const subject of order) await measureRepetition(sizes, runs[subject], measured[subject], repetition);
  }
  return measured;
}

/** One single run and one batch of `sizes.runs` at once, in the order the repetition's number says. */
async function measureRepetition(
  sizes: ConcurrencySizes,
  run: RunOnce,
  measured: Batches,
  repetition: number,
): Promise<void> {
  const batch = async (): Promise<number> => {
    const [benchBefore, serverBefore] = [processCpuMs(), childrenCpuMs()];
    const started = performance.now();
    const runs = await Promise.all(
      Array.from({ length: sizes.runs }, (_, index) => run(`batch-${repetition}-${index}`)),
    );
    const ms = performance.now() - started;
    const serverAfter = childrenCpuMs();
    measured.cpu.bench += processCpuMs() - benchBefore;
    measured.cpu.server =
      serverBefore === undefined || serverAfter === undefined || measured.cpu.server === undefined
        ? undefined
        : measured.cpu.server + serverAfter - serverBefore;
    measured.slowest = Math.max(measured.slowest, ...runs);
    return ms;
  };
  if (repetition % 2 === 0) {
    measured.singles.push(await run(`single-${repetition}`));
    measured.batches.push(await batch());
  } else {
    measured.batches.push(await batch());
    measured.singles.push(await run(`single-${repetition}`));
  }
}

/** Where a step's CPU went, and the bound it sets: a batch cannot end before its CPU spread over every core. */
function cpuText(measured: Batches, what: string, steps: number, sizes: ConcurrencySizes): string {
  const { bench, server } = measured.cpu;
  const cores = os.cpus().length;
  const single = median(measured.singles);
  const busy = (bench + (server ?? 0)) / measured.batches.reduce((sum, ms) => sum + ms, 0);
  const load = `the batches kept ${busy.toFixed(2)} cores busy on average (the machine has ${cores}, load average ${os.loadavg()[0]!.toFixed(2)} as they ended).`;
  if (server === undefined) {
    return `A step costs ${formatMs(bench / steps)} of CPU in this process (${what}; the dev server's is not readable here); ${load}`;
  }
  const cpuBound = (bench + server) / sizes.repetitions / cores / single;
  const targetStepCpu = (1.5 * single * cores) / (sizes.runs * sizes.steps);
  return (
    `A step costs ${formatMs(bench / steps)} of CPU in this process (${what}) ` +
    `and ${formatMs(server / steps)} in the dev server; ${load} Their CPU alone, spread over ${cores} cores, takes ` +
    `${cpuBound.toFixed(2)}× one run: the 1.5× target needs a step to cost at most ${formatMs(targetStepCpu)} of CPU ` +
    `in all here, server included; it costs ${formatMs((bench + server) / steps)}.`
  );
}

/** A step's CPU (this process and the dev server) against the floor's: what the agent adds to what Temporal costs. */
function stepCpuComparison(agent: Batches, floor: Batches, steps: number): string {
  if (agent.cpu.server === undefined || floor.cpu.server === undefined) return '';
  const ours = (agent.cpu.bench + agent.cpu.server) / steps;
  const floors = (floor.cpu.bench + floor.cpu.server) / steps;
  return `A step's CPU, server included, is ${formatMs(ours)} against the floor's ${formatMs(floors)}: ${(ours / floors).toFixed(2)}× (target ≤ 1.25×).`;
}
