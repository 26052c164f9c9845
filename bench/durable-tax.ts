// The durability tax: a durable run against the in-process floor doing the same model calls (same scripted server,
// same latency, same provider code) and the same tool work, alternated and repeated, medians compared.
import { randomBytes } from 'node:crypto';
import { createDirectoryStore } from '../src/store/directory-store.js';
import type { DurableEnv } from './durable-env.js';
import { BENCH_TASK } from './durable-env.js';
import { readScript, writeReadFiles } from './durable-scripts.js';
import { createFloor } from './floor-loop.js';
import type { ChartBar, ChartedRows } from './chart.js';
import type { BenchRow } from './measure.js';
import { compareTimes, formatMs, speedVerdict } from './measure.js';

/** How long a run is and how often each side runs. */
export interface TaxSizes {
  steps: number;
  latencyMs: number;
  repetitions: number;
  /** Runs at 0 ms latency are short and noisier, so they get more repetitions. */
  zeroLatencyRepetitions: number;
}

/** A durable run ÷ the floor, at the simulated model latency and at none. */
export async function benchDurabilityTax(env: DurableEnv, sizes: TaxSizes): Promise<ChartedRows> {
  const workspace = await env.tempDirectory('tax');
  await writeReadFiles(workspace);
  const worker = await env.startWorker();
  const floor = createFloor(createDirectoryStore(await env.tempDirectory('floor-store')));
  const script = readScript(sizes.steps);

  const durable = async (latencyMs: number) => {
    const { result } = await env.runToEnd(worker, {
      script,
      workspace,
      maxSteps: sizes.steps,
      latencyMs,
      label: 'tax',
    });
    return { steps: result.steps, toolCalls: result.toolCalls, answer: result.answer };
  };
  const inProcess = async (latencyMs: number) => {
    const model = await env.startModel({ script, latencyMs });
    try {
      return await floor({
        taskId: `floor-${randomBytes(4).toString('hex')}`,
        task: BENCH_TASK,
        workspace,
        selection: { provider: 'openai', model: 'scripted-model', baseUrl: model.url },
        maxSteps: sizes.steps,
      });
    } finally {
      await model.close();
    }
  };

  const rows: BenchRow[] = [];
  const bars: ChartBar[] = [];
  for (const [latencyMs, repetitions] of [
    [sizes.latencyMs, sizes.repetitions],
    [0, sizes.zeroLatencyRepetitions],
  ] as const) {
    const times = await compareTimes([latencyMs], durable, inProcess, { repetitions });
    const ours = times.oursResults[0]!;
    const floorRun = times.baselineResults[0]!;
    if (JSON.stringify(ours) !== JSON.stringify(floorRun)) {
      throw new Error(
        `the durable run and the floor did different work: ${JSON.stringify(ours)} vs ${JSON.stringify(floorRun)}`,
      );
    }
    const perStep = (times.ours - times.baseline) / sizes.steps;
    bars.push({ label: `durable ÷ floor, ${latencyMs} ms latency`, value: times.ratio });
    rows.push({
      measurement: `Durability tax, ${sizes.steps} steps at ${latencyMs} ms model latency: durable run ÷ in-process floor`,
      ours: formatMs(times.ours),
      baseline: formatMs(times.baseline),
      ratio: times.ratio,
      ratioRange: times.ratioRange,
      conclusion:
        `${speedVerdict(times.ratio, 'the durable run', 'the same calls in a plain loop')}: ` +
        `${formatMs(perStep)} a step for the server round trips, workflow tasks and history ` +
        `(${sizes.steps - 1} ReadFile steps of a 4 KB file and an answer; medians of ${repetitions} alternated runs).`,
    });
  }
  return { rows, bars };
}
