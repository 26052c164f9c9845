// Replay cost: a long run's histories are saved as JSON files (what `temporal workflow show --output json` and
// `durable-agent replay FILE` use), then replayed with checkReplay, the CLI's own replay, against the run's wall time.
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { historyFromJSON, historyToJSON } from '@temporalio/common/lib/proto-utils.js';
import { checkReplay } from '../src/history/replay-check.js';
import { chainRunHistories } from './chain.js';
import type { DurableEnv } from './durable-env.js';
import { readScript, writeReadFiles } from './durable-scripts.js';
import type { ChartedRows } from './chart.js';
import type { BenchRow } from './measure.js';
import { formatMs, median, timeMs } from './measure.js';

export interface ReplaySizes {
  steps: number;
  latencyMs: number;
  repetitions: number;
}

/** Time to replay every run of a chain ÷ the time the chain took to run. */
export async function benchReplay(env: DurableEnv, sizes: ReplaySizes): Promise<ChartedRows> {
  const workspace = await env.tempDirectory('replay');
  await writeReadFiles(workspace);
  const worker = await env.startWorker();
  const run = await env.runToEnd(worker, {
    script: readScript(sizes.steps),
    workspace,
    maxSteps: sizes.steps,
    latencyMs: sizes.latencyMs,
    label: 'replay',
  });
  const directory = await env.tempDirectory('histories');
  const files: string[] = [];
  for (const [index, history] of (await chainRunHistories(env.client, run.workflowId, run.firstRunId)).entries()) {
    const file = path.join(directory, `run-${index + 1}.json`);
    await writeFile(file, historyToJSON(history));
    files.push(file);
  }
  const histories = await Promise.all(
    files.map(async (file) => historyFromJSON(JSON.parse(await readFile(file, 'utf8')))),
  );
  const events = histories.reduce((sum, history) => sum + (history.events?.length ?? 0), 0);

  const totals: number[] = [];
  for (let repetition = 0; repetition < sizes.repetitions; repetition++) {
    let total = 0;
    for (const history of histories) {
      let deterministic = false;
      total += await timeMs(async () => {
        deterministic = (
          await checkReplay(
            { workflowBundle: env.bundle, dataConverter: worker.dataConverter },
            history,
            run.workflowId,
          )
        ).deterministic;
      });
      if (!deterministic) throw new Error(`replaying ${run.workflowId} found a nondeterminism`);
    }
    totals.push(total);
  }
  const replayMs = median(totals);
  const ratio = replayMs / run.ms;
  const row: BenchRow = {
    measurement: `Replay of a ${sizes.steps}-step run at ${sizes.latencyMs} ms model latency: replay ÷ the run's wall time`,
    ours: formatMs(replayMs),
    baseline: formatMs(run.ms),
    ratio,
    ratioRange: [Math.min(...totals) / run.ms, Math.max(...totals) / run.ms],
    conclusion:
      `${(ratio * 100).toFixed(2)} % of the run's time (target ≤ 2 %): replaying ${histories.length === 1 ? 'its history' : `the ${histories.length} runs of its continue-as-new chain`} ` +
      `(${events} events, saved as JSON and read back) takes ${formatMs(replayMs)}, ${formatMs(replayMs / events)} an event, ` +
      `median of ${sizes.repetitions}; the workflow bundle is built once beforehand, as a worker has it.`,
  };
  return { rows: [row], bars: [{ label: 'replay ÷ run', value: ratio, target: 0.02 }] };
}
