// History and store growth of long runs: the same read-a-file-a-step script with the content store (the design) and
// with the whole transcript also passed through history on every model call (a design without the store). Each run
// has its own worker and store directory, so the store's size is that run's alone.
import { setTimeout as sleep } from 'node:timers/promises';
import { performance } from 'node:perf_hooks';
import type { History } from '@temporalio/common/lib/proto-utils.js';
import type { AgentResult } from '../src/protocol/run-report.js';
import { bytesPerStep, eventBytes, meanBytes } from '../test/support/history-size.js';
import { directoryBytesSync, formatBytes } from './bytes.js';
import { chainRunHistories, countCompactions, lastFailure } from './chain.js';
import type { DurableEnv, StartedRun } from './durable-env.js';
import { readScript, writeReadFiles } from './durable-scripts.js';
import type { ChartBar, ChartedRows } from './chart.js';
import type { BenchRow } from './measure.js';
import { pairedRange } from './measure.js';

/** The steps at which growth is measured (the store run goes to the last, the inline run to the second). */
export interface HistorySizes {
  points: readonly [number, number, number];
  /** A run that serves no model call for this long is stuck (a payload the server refuses): it is terminated. */
  stallMs: number;
}

/** Bytes per step of both runs, for the chart. */
export interface HistorySeries {
  store: Map<number, number>;
  inline: Map<number, number>;
  /** Store bytes written per step, measured over the window before each point. */
  storeWritten: { step: number; bytes: number }[];
}

// Each figure is the mean of the 10 steps before its point: one step alone may carry a continue-as-new or a
// compaction, and the point's own step may be the answer, which runs no tool.
const WINDOW = 10;

interface MeasuredRun {
  perStep: Map<number, number>;
  histories: History[];
  result?: AgentResult;
  /** Why the run did not complete, when it did not. */
  stopped?: string;
  /** Store size (files under the run's store directory) when the model was asked for each checkpoint's turn. */
  storeAt: Map<number, number>;
  storeAtEnd: number;
  warnings: string[];
}

/** History bytes per step (store vs inline, flatness) and store bytes written per step (flatness). */
export async function benchHistory(
  env: DurableEnv,
  sizes: HistorySizes,
): Promise<ChartedRows & { series: HistorySeries }> {
  const workspace = await env.tempDirectory('history');
  await writeReadFiles(workspace);
  const [first, middle, last] = sizes.points;
  const store = await measureRun(env, workspace, last, false, sizes);
  if (store.stopped) throw new Error(`the ${last}-step store-mode run did not complete: ${store.stopped}`);
  const inline = await measureRun(env, workspace, middle, true, sizes);
  const inlineReached = Math.max(0, ...inline.perStep.keys());

  const window = (perStep: Map<number, number>, point: number) =>
    Array.from({ length: WINDOW }, (_, offset) => perStep.get(point - WINDOW + offset)).filter(
      (value) => value !== undefined,
    );
  const mean = (perStep: Map<number, number>, point: number) => meanBytes(perStep, point - WINDOW, point - 1);
  const rows: BenchRow[] = [];
  const bars: ChartBar[] = [];
  for (const point of [first, middle]) {
    if (inlineReached < point) continue;
    const ours = mean(store.perStep, point);
    const baseline = mean(inline.perStep, point);
    const [storeValues, inlineValues] = [window(store.perStep, point), window(inline.perStep, point)];
    bars.push({ label: `history/step at ${point}: store ÷ inline`, value: ours / baseline });
    rows.push({
      measurement: `History bytes added per step at step ${point}: content store ÷ inline transcript`,
      ours: formatBytes(ours),
      baseline: formatBytes(baseline),
      ratio: ours / baseline,
      ratioRange:
        storeValues.length === inlineValues.length
          ? pairedRange(storeValues, inlineValues)
          : [ours / baseline, ours / baseline],
      conclusion:
        `steps ${point - WINDOW}–${point - 1} add ${formatBytes(ours)} each with keys in history, ${formatBytes(baseline)} with the ` +
        `transcript inline (${(baseline / ours).toFixed(0)}× more).` +
        (point === middle ? ` ${chainSummary('inline', inline, middle)}; ${chainSummary('store', store, last)}.` : ''),
    });
  }
  if (inlineReached >= middle) {
    // The inline run's bytes per step saw up and down as compaction shortens its transcript, so a window's figure
    // depends on where the window falls; the average over the whole stretch does not.
    const ours = bytesThrough(store.histories, middle) / middle;
    const baseline = bytesThrough(inline.histories, middle) / middle;
    bars.push({ label: `history/step, 1–${middle}: store ÷ inline`, value: ours / baseline });
    rows.push({
      measurement: `History bytes per step over steps 1–${middle}, continue-as-new included: content store ÷ inline transcript`,
      ours: formatBytes(ours),
      baseline: formatBytes(baseline),
      ratio: ours / baseline,
      ratioRange: [ours / baseline, ours / baseline],
      conclusion:
        `${formatBytes(bytesThrough(store.histories, middle))} of history for the first ${middle} steps with the content store, ` +
        `${formatBytes(bytesThrough(inline.histories, middle))} with the transcript inline (${(baseline / ours).toFixed(0)}× more).`,
    });
  } else {
    rows.push({
      measurement: `Inline-transcript run to ${middle} steps`,
      ours: `${inlineReached} steps`,
      baseline: `${middle} steps`,
      ratio: inlineReached / middle,
      ratioRange: [inlineReached / middle, inlineReached / middle],
      conclusion: `the inline-transcript run stopped at step ${inlineReached}: ${inline.stopped ?? 'unknown reason'}.`,
    });
  }

  const storeEarly = mean(store.perStep, first);
  const storeMiddle = mean(store.perStep, middle);
  const storeLate = mean(store.perStep, last);
  const flatness = storeLate / storeEarly;
  bars.push({ label: `history/step, store: ${last} ÷ ${first}`, value: flatness, target: 1.5 });
  rows.push({
    measurement: `History bytes added per step, content store: step ${last.toLocaleString('en-US')} ÷ step ${first}`,
    ours: formatBytes(storeLate),
    baseline: formatBytes(storeEarly),
    ratio: flatness,
    ratioRange: pairedRange(window(store.perStep, last), window(store.perStep, first)),
    conclusion:
      `${flatness <= 1.5 ? 'flat' : 'NOT flat'} (target ≤ 1.5×): ${formatBytes(storeEarly)} a step at step ${first}, ` +
      `${formatBytes(storeMiddle)} at ${middle}, ${formatBytes(storeLate)} at ${last.toLocaleString('en-US')}; the ` +
      `${last.toLocaleString('en-US')}-step run completed as a chain of ${runs(store.histories.length)} (continue-as-new) ` +
      `and compacted its transcript ${times(countCompactions(store.histories))}.`,
  });

  const written = (point: number) => (store.storeAt.get(point)! - store.storeAt.get(point - WINDOW)!) / WINDOW;
  const [writtenEarly, writtenMiddle, writtenLate] = [written(first), written(middle), written(last)];
  bars.push({ label: `store writes/step: ${last} ÷ ${first}`, value: writtenLate / writtenEarly, target: 1.5 });
  rows.push({
    measurement: `Store bytes written per step, content store: step ${last.toLocaleString('en-US')} ÷ step ${first}`,
    ours: formatBytes(writtenLate),
    baseline: formatBytes(writtenEarly),
    ratio: writtenLate / writtenEarly,
    ratioRange: [writtenLate / writtenEarly, writtenLate / writtenEarly],
    conclusion:
      `${writtenLate / writtenEarly <= 1.5 ? 'flat' : 'NOT flat'}: ${formatBytes(writtenEarly)} a step at step ${first}, ${formatBytes(writtenMiddle)} at ` +
      `${middle}, ${formatBytes(writtenLate)} at ${last.toLocaleString('en-US')} (files under the run's store directory; each step stores its ` +
      `4 KB tool result, its assistant message and one transcript node, never the transcript again). The store holds ` +
      `${formatBytes(store.storeAtEnd)} after ${last.toLocaleString('en-US')} steps, the history ${formatBytes(totalBytes(store.histories))}.`,
  });

  return {
    rows,
    bars,
    series: {
      store: store.perStep,
      inline: inline.perStep,
      storeWritten: [
        { step: first, bytes: writtenEarly },
        { step: middle, bytes: writtenMiddle },
        { step: last, bytes: writtenLate },
      ],
    },
  };
}

/** One run of `steps` steps on its own worker, with the store's size taken at the checkpoints of every point. */
async function measureRun(
  env: DurableEnv,
  workspace: string,
  steps: number,
  inline: boolean,
  sizes: HistorySizes,
): Promise<MeasuredRun> {
  // A design without the content store has no External Storage over it either: its payloads all stay in history.
  const worker = await env.startWorker(inline ? { payloadSizeThreshold: Number.MAX_SAFE_INTEGER } : {});
  const checkpoints = new Set(sizes.points.flatMap((point) => [point - WINDOW, point]));
  const storeAt = new Map<number, number>();
  let lastTurnAt = performance.now();
  const warningsBefore = env.warnings.length;
  // The model is asked for turn N only after every write of step N - 1 has landed (tool results by their activities,
  // the rest by this call's own activity): nothing is in flight, so the count is exact.
  const started: StartedRun = await env.startRun(worker, {
    script: readScript(steps),
    workspace,
    maxSteps: steps,
    latencyMs: 0,
    input: inline ? { inlineTranscript: true } : {},
    label: inline ? 'inline' : 'store',
    onTurn: (turn, at) => {
      lastTurnAt = at;
      if (checkpoints.has(turn)) storeAt.set(turn, directoryBytesSync(worker.storeDirectory));
    },
  });
  try {
    const outcome = await resultOrStall(started, () => lastTurnAt, sizes.stallMs);
    const histories = await chainRunHistories(
      env.client,
      started.handle.workflowId,
      started.handle.firstExecutionRunId,
    );
    const completed = outcome.result?.status === 'completed' && outcome.result.steps === steps;
    return {
      perStep: bytesPerStep(histories.map((history) => history.events ?? [])).perStep,
      histories,
      ...(outcome.result ? { result: outcome.result } : {}),
      ...(completed
        ? {}
        : {
            stopped: outcome.stalled
              ? `no model call for ${sizes.stallMs / 1000} s (${lastFailure(histories) ?? 'no failure recorded'})`
              : (lastFailure(histories) ?? outcome.error ?? 'unknown'),
          }),
      storeAt,
      storeAtEnd: directoryBytesSync(worker.storeDirectory),
      warnings: env.warnings.slice(warningsBefore),
    };
  } finally {
    await started.model.close();
  }
}

/** The run's result, or a note that it stopped making progress (then it is terminated). */
async function resultOrStall(
  started: StartedRun,
  lastProgress: () => number,
  stallMs: number,
): Promise<{ result?: AgentResult; error?: string; stalled?: boolean }> {
  const outcome = started.handle.result().then(
    (result) => ({ result }),
    (error: unknown) => ({
      error:
        error instanceof Error ? (error.cause instanceof Error ? error.cause.message : error.message) : String(error),
    }),
  );
  for (;;) {
    const settled = await Promise.race([outcome, sleep(1000).then(() => undefined)]);
    if (settled) return settled;
    if (performance.now() - lastProgress() > stallMs) {
      await started.handle.terminate('bench: the run made no model call for too long');
      await outcome;
      return { stalled: true };
    }
  }
}

/** History bytes of a chain's first `steps` steps, with the edges (start, continue-as-new) of every run begun by then. */
function bytesThrough(histories: readonly History[], steps: number): number {
  let total = 0;
  for (const history of histories) {
    const { perStep, runEdges } = bytesPerStep([history.events ?? []]);
    const taken = [...perStep.keys()].filter((step) => step <= steps);
    if (taken.length === 0) continue;
    total += (runEdges[0] ?? 0) + taken.reduce((sum, step) => sum + perStep.get(step)!, 0);
  }
  return total;
}

function runs(count: number): string {
  return count === 1 ? '1 run' : `${count} runs`;
}

function times(count: number): string {
  return count === 0 ? 'never' : count === 1 ? 'once' : `${count} times`;
}

function totalBytes(histories: readonly History[]): number {
  return histories.reduce(
    (sum, history) => sum + (history.events ?? []).reduce((events, event) => events + eventBytes(event), 0),
    0,
  );
}

function chainSummary(mode: string, run: MeasuredRun, steps: number): string {
  const oversized = run.warnings.filter((warning) => warning.includes('TMPRL1103')).length;
  return (
    `${mode} run: ${formatBytes(totalBytes(run.histories))} of history in ${steps} steps, a chain of ` +
    `${runs(run.histories.length)}, ${oversized} payload-size warnings (TMPRL1103)`
  );
}
