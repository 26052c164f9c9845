// What workspace checkpoints cost a run: the same writing run (a new 4 KB file a step) in a workspace of 2,000 files,
// with checkpoints after every write and without (`checkpoints: false`), alternated on one worker, medians compared.
import { rm } from 'node:fs/promises';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { ChartedRows } from './chart.js';
import type { DurableEnv } from './durable-env.js';
import { FILE_BYTES, writeReadFiles, writeScript } from './durable-scripts.js';
import { compareTimes, formatMs } from './measure.js';

export interface CheckpointRunSizes {
  steps: number;
  latencyMs: number;
  repetitions: number;
}

const PROJECT_DIRECTORIES = 20;
const FILES_PER_DIRECTORY = 100;

export async function benchCheckpointedRuns(env: DurableEnv, sizes: CheckpointRunSizes): Promise<ChartedRows> {
  const workspace = await env.tempDirectory('checkpoints');
  await writeReadFiles(workspace);
  for (let directory = 0; directory < PROJECT_DIRECTORIES; directory++) {
    const directoryPath = path.join(workspace, 'project', `d${directory}`);
    await mkdir(directoryPath, { recursive: true });
    for (let index = 0; index < FILES_PER_DIRECTORY; index++)
      await writeFile(path.join(directoryPath, `f${index}.txt`), `${directory}/${index}\n`.repeat(FILE_BYTES / 8));
  }
  const worker = await env.startWorker();
  const script = writeScript(sizes.steps);
  const run = async (checkpoints: boolean) => {
    // Each run writes the same new files: the one before left them, and its writes would meet existing files.
    await rm(path.join(workspace, 'out'), { recursive: true, force: true });
    const { result } = await env.runToEnd(worker, {
      script,
      workspace,
      maxSteps: sizes.steps,
      latencyMs: sizes.latencyMs,
      label: checkpoints ? 'checkpointed' : 'unrecorded',
      ...(checkpoints ? {} : { input: { checkpoints: false } }),
    });
    return { steps: result.steps, toolCalls: result.toolCalls };
  };
  const times = await compareTimes(
    [true],
    () => run(true),
    () => run(false),
    { repetitions: sizes.repetitions },
  );
  const perStep = (times.ours - times.baseline) / sizes.steps;
  const files = PROJECT_DIRECTORIES * FILES_PER_DIRECTORY + 10;
  return {
    rows: [
      {
        measurement: `${sizes.steps} steps at ${sizes.latencyMs} ms writing a file each, ${files.toLocaleString('en')}-file workspace: with checkpoints ÷ without`,
        ours: formatMs(times.ours),
        baseline: formatMs(times.baseline),
        ratio: times.ratio,
        ratioRange: times.ratioRange,
        conclusion:
          `a checkpoint after every write adds ${formatMs(perStep)} a step ` +
          `(${times.ratio <= 1.05 ? 'within' : 'over'} the 1.05× target; medians of ${sizes.repetitions} alternated runs on one worker, its stat cache warm after the first).`,
      },
    ],
    bars: [{ label: 'with checkpoints ÷ without', value: times.ratio, target: 1.05 }],
  };
}
