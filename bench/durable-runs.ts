// The durable-run sections of `npm run bench` (`npm run bench -- durable`): what durability costs and how a run
// grows, each figure a ratio of two things measured side by side in the same run. They share one Temporal dev server
// and workflow bundle, started when the first of them runs; `BENCH_QUICK=1` shrinks every run to check the code.
import os from 'node:os';
import type { ChartBar, ChartedRows } from './chart.js';
import { writeChart } from './chart.js';
import type { ConcurrencySizes } from './durable-concurrency.js';
import { benchConcurrency } from './durable-concurrency.js';
import type { DurableEnv } from './durable-env.js';
import { startDurableEnv } from './durable-env.js';
import type { FanOutSizes } from './durable-fanout.js';
import { benchFanOut } from './durable-fanout.js';
import type { HistorySeries, HistorySizes } from './durable-history.js';
import { benchHistory } from './durable-history.js';
import type { ReplaySizes } from './durable-replay.js';
import { benchReplay } from './durable-replay.js';
import type { SubAgentSizes } from './durable-sub-agents.js';
import { benchSubAgents } from './durable-sub-agents.js';
import type { CheckpointRunSizes } from './durable-checkpoints.js';
import { benchCheckpointedRuns } from './durable-checkpoints.js';
import type { TelemetrySizes } from './durable-telemetry.js';
import { benchTelemetry } from './durable-telemetry.js';
import type { TaxSizes } from './durable-tax.js';
import { benchDurabilityTax } from './durable-tax.js';
import { loadAverage } from './machine.js';
import type { BenchRow } from './measure.js';
import { SLOW_TASK_MS, describeTimings, timingsSince } from '../test/support/task-timings.js';
import type { Section } from './section.js';

interface Sizes {
  tax: TaxSizes;
  history: HistorySizes;
  replay: ReplaySizes;
  concurrency: ConcurrencySizes;
  fanOut: FanOutSizes;
  subAgents: SubAgentSizes;
  checkpoints: CheckpointRunSizes;
  telemetry: TelemetrySizes;
}

const FULL: Sizes = {
  tax: { steps: 30, latencyMs: 300, repetitions: 5, zeroLatencyRepetitions: 7 },
  history: { points: [20, 200, 1000], stallMs: 90_000 },
  replay: { steps: 500, latencyMs: 300, repetitions: 3 },
  concurrency: { runs: 50, steps: 10, latencyMs: 300, repetitions: 3 },
  fanOut: { steps: 4, repetitions: 5 },
  subAgents: { latencyMs: 300, repetitions: 5 },
  checkpoints: { steps: 20, latencyMs: 300, repetitions: 5 },
  telemetry: { steps: 30, latencyMs: 300, repetitions: 5 },
};

const QUICK: Sizes = {
  tax: { steps: 5, latencyMs: 300, repetitions: 2, zeroLatencyRepetitions: 2 },
  history: { points: [15, 30, 45], stallMs: 30_000 },
  replay: { steps: 10, latencyMs: 300, repetitions: 2 },
  concurrency: { runs: 5, steps: 5, latencyMs: 300, repetitions: 1 },
  fanOut: { steps: 2, repetitions: 2 },
  subAgents: { latencyMs: 300, repetitions: 1 },
  checkpoints: { steps: 5, latencyMs: 300, repetitions: 1 },
  telemetry: { steps: 5, latencyMs: 300, repetitions: 1 },
};

/** The durable-run sections and what to do once they have run. */
export interface DurableSections {
  sections: Section[];
  /**
   * Draws the chart into `chartFile` when every durable section ran and succeeded (a partial run leaves the last
   * chart in place) and stops the dev server. Returns the file written, if any.
   */
  finish(chartFile: string): Promise<string | undefined>;
}

/**
 * How long the section's workflow tasks took (server time, start to completion) against the 1 s a run may go without
 * answering a query, an approval or a cancel, with the worker's own count (TMPRL1104, its threshold lowered to 1 s)
 * and any heartbeat timeout (no worker is killed here: each would be a live worker taken for a lost one).
 */
async function taskTimingsRow(env: DurableEnv, startedAt: number, warningsBefore: number): Promise<BenchRow> {
  const timings = await timingsSince(env.client, startedAt);
  const slowReported = env.warnings.slice(warningsBefore).filter((warning) => warning.includes('TMPRL1104')).length;
  const ratio = timings.longestWorkflowTaskMs / SLOW_TASK_MS;
  return {
    measurement: 'Longest workflow task ÷ the 1 s limit',
    ours: `${timings.longestWorkflowTaskMs} ms`,
    baseline: `${SLOW_TASK_MS / 1000} s`,
    ratio,
    ratioRange: [ratio, ratio],
    conclusion:
      `${describeTimings(timings)}; the worker logged ${slowReported} TMPRL1104 ` +
      `(workflow task over ${SLOW_TASK_MS / 1000} s).`,
  };
}

/** Creates the sections; nothing starts until one of them runs. */
export function durableSections(options: { quick: boolean; log: (line: string) => void }): DurableSections {
  const sizes = options.quick ? QUICK : FULL;
  let started: Promise<DurableEnv> | undefined;
  const environment = (): Promise<DurableEnv> => (started ??= startDurableEnv(options.log));
  const bars = new Map<string, ChartBar[]>();
  let series: HistorySeries | undefined;

  const section = (id: string, name: string, measure: (env: DurableEnv) => Promise<ChartedRows>): Section => ({
    id,
    name,
    run: async () => {
      const env = await environment();
      const startedAt = Date.now();
      const warningsBefore = env.warnings.length;
      const charted = await measure(env);
      bars.set(id, charted.bars);
      return [...charted.rows, await taskTimingsRow(env, startedAt, warningsBefore)];
    },
  });
  const sections = [
    section('durable-tax', 'Durability tax', (env) => benchDurabilityTax(env, sizes.tax)),
    section('durable-history', 'History and store growth', async (env) => {
      const measured = await benchHistory(env, sizes.history);
      series = measured.series;
      return measured;
    }),
    section('durable-replay', 'Replay', (env) => benchReplay(env, sizes.replay)),
    section('durable-concurrency', 'Concurrent runs', (env) => benchConcurrency(env, sizes.concurrency)),
    section('durable-fanout', 'Fan-out', (env) => benchFanOut(env, sizes.fanOut)),
    section('durable-sub-agents', 'Sub-agents', (env) => benchSubAgents(env, sizes.subAgents)),
    section('durable-checkpoints', 'Workspace checkpoints in a run', (env) =>
      benchCheckpointedRuns(env, sizes.checkpoints),
    ),
    section('durable-telemetry', 'Traces and metrics', (env) => benchTelemetry(env, sizes.telemetry)),
  ];

  return {
    sections,
    async finish(chartFile) {
      if (started) await (await started.catch(() => undefined))?.close();
      if (!series || sections.some((candidate) => !bars.has(candidate.id))) return undefined;
      const date = new Date().toISOString().slice(0, 10);
      await writeChart(chartFile, {
        title: `durable-agent: durable runs (${date}, ${os.cpus().length} cores, load ${loadAverage().split(' ')[0]})`,
        store: series.store,
        inline: series.inline,
        storeWritten: series.storeWritten,
        bars: sections.flatMap((candidate) => bars.get(candidate.id) ?? []),
      });
      return chartFile;
    },
  };
}
