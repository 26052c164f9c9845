// Node: `diff`: what a run did to its workspace's files, read from the checkpoints in its history and the trees and
// files they name in the content store.
import type { Config } from '../../config.js';
import type { FileChange } from '../../protocol/checkpoint.js';
import { fileChangesOf } from '../../protocol/checkpoint.js';
import { changeLines } from '../workspace-files.js';
import type { RunHistory } from '../../history/history-reader.js';
import { readTask } from '../../history/run-tree.js';
import type { FilesAt } from '../../history/workspace-range.js';
import { filesAfter, lastStep, stepRange } from '../../history/workspace-range.js';
import { compareCheckpoints } from '../../activities/checkpoint/compare.js';
import { renderUnifiedDiff } from '../../activities/checkpoint/unified-diff.js';
import { MissingContentError } from '../../store/content-store.js';
import { visibleLines, visibleText } from '../../core/terminal-text.js';
import { cliStore } from '../cli-store.js';
import { connect } from '../connect.js';
import { EXIT, UsageError } from '../exit-codes.js';
import { parseCommandLine } from '../option-table.js';
import { diffOptions } from '../options/runs.js';
import { color, log, out, outJson } from '../output.js';

/** `diff ID [--step N | --from A --to B] [--run-id R] [--stat] [--json]`. */
export async function diffCommand(argv: string[], config: Config): Promise<number> {
  const { values, positionals } = parseCommandLine(diffOptions, argv);
  const workflowId = positionals[0];
  if (!workflowId || positionals.length > 1) throw new UsageError('diff needs a run id: durable-agent diff ID');
  if (values.step !== undefined && (values.from !== undefined || values.to !== undefined))
    throw new UsageError('--step N shows one step; --from and --to a range: give one or the other');
  const step = stepNumber('--step', values.step);
  const from = stepNumber('--from', values.from);
  const to = stepNumber('--to', values.to);

  const connected = await connect(config, { needWorker: false });
  let run: RunHistory;
  try {
    run = await readTask(connected.client, workflowId, values['run-id']);
  } finally {
    await connected.close();
  }

  const range =
    step !== undefined
      ? stepRange(run, step)
      : { from: filesAfter(run, from ?? 0), to: filesAfter(run, to ?? lastStep(run)) };
  if (!range) {
    log(`step ${step} of ${visibleText(workflowId)} made no call that could change files`);
    if (values.json) outJson({ workflowId, from: null, to: null, files: [] });
    return EXIT.finished;
  }
  const store = cliStore();
  let changes: FileChange[];
  try {
    changes = await changesBetween(range.from, range.to);
  } catch (error) {
    if (!(error instanceof MissingContentError)) throw error;
    log(color.red(`error: ${error.message} (collected by gc, or the CLI reads another store than the workers)`));
    return EXIT.failed;
  }
  // A directory's own appearance or removal goes with the files in it; git lists none either.
  const files = fileChangesOf(changes);
  if (values.json) {
    outJson({ workflowId, ...range, files: files.map(({ path, change }) => ({ path, change })) });
  } else if (files.length === 0) {
    log(`no file changed between step ${range.from.step} and step ${range.to.step}`);
  } else if (values.stat) {
    out(changeLines(files).join('\n') + '\n');
  } else {
    // The files are what the model and its commands wrote: on a terminal they are shown, never acted on; piped, the
    // patch is exact, so it applies.
    const patch = await renderUnifiedDiff(store, changes);
    out(process.stdout.isTTY ? visibleLines(patch) : patch);
  }
  return EXIT.finished;

  async function changesBetween(before: FilesAt, after: FilesAt): Promise<FileChange[]> {
    if (after.checkpoint === null) return [];
    return compareCheckpoints(store, before.checkpoint, after.checkpoint);
  }
}

function stepNumber(option: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const number = Number(value);
  if (!Number.isInteger(number) || number < 0)
    throw new UsageError(`${option} must be a step number (0 or more), got "${value}"`);
  return number;
}
