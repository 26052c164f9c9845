// Node: `rewind`: a run's workspace set back to its files after step N, from the checkpoints in its history; with
// --conversation the run's conversation too, by forking from that step in the same workspace.
import { realpath } from 'node:fs/promises';
import type { Config } from '../../config.js';
import type { ContentKey } from '../../protocol/content-key.js';
import type { FileChange } from '../../protocol/checkpoint.js';
import { taskOf } from '../../history/run-tree.js';
import { readChain } from '../../history/run-chain.js';
import { runInput } from '../../history/run-input.js';
import { checkpointIgnore } from '../../core/state.js';
import { filesAfter, lastStep } from '../../history/workspace-range.js';
import { visibleText } from '../../core/terminal-text.js';
import { cliStore } from '../cli-store.js';
import { connect } from '../connect.js';
import { EXIT, UsageError } from '../exit-codes.js';
import { parseCommandLine } from '../option-table.js';
import { rewindOptions } from '../options/runs.js';
import { color, log, outJson } from '../output.js';
import { changeLines, restoreWorkspace } from '../workspace-files.js';
import { parseKeyArgument } from '../key-argument.js';

const OPEN_STATUSES = new Set(['running', 'waiting_approval']);

/** `rewind ID --to-step N | --to-checkpoint KEY [--force] [--conversation] [--run-id R] [--json]`. */
export async function rewindCommand(argv: string[], config: Config): Promise<number> {
  const { values, positionals } = parseCommandLine(rewindOptions, argv);
  const workflowId = positionals[0];
  if (!workflowId || positionals.length > 1)
    throw new UsageError('rewind needs a run id and a step: durable-agent rewind ID --to-step N');
  const wanted = target(values['to-step'], values['to-checkpoint']);
  if (values.conversation && wanted.step === undefined)
    throw new UsageError('--conversation forks from a step: give --to-step N');

  const connected = await connect(config, { needWorker: false });
  let chain;
  try {
    chain = await readChain(connected.client, workflowId, values['run-id']);
  } finally {
    await connected.close();
  }
  const run = taskOf(chain);
  if (OPEN_STATUSES.has(run.status)) {
    log(color.red(`error: ${visibleText(workflowId)} is ${run.status}: pause or cancel it before rewinding its files`));
    return EXIT.failed;
  }
  const input = runInput(chain[0]!.history);
  if (!input) {
    log(color.red(`error: the input of ${visibleText(workflowId)} cannot be read from its history`));
    return EXIT.failed;
  }
  const last = filesAfter(run, lastStep(run)).checkpoint;
  if (last === null) {
    log(`${visibleText(workflowId)} changed no files: there is nothing to rewind`);
    return EXIT.finished;
  }
  let root: string;
  try {
    root = await realpath(input.workspace);
  } catch {
    log(color.red(`error: the run's workspace ${visibleText(input.workspace)} is not on this machine`));
    return EXIT.failed;
  }
  const to = wanted.checkpoint ?? filesAfter(run, wanted.step!).checkpoint;
  const ignore = checkpointIgnore(input);
  const store = cliStore();
  const outcome = await restoreWorkspace(store, root, {
    target: to,
    last,
    force: values.force,
    ...(ignore ? { ignore } : {}),
  });
  const undo = `durable-agent rewind ${workflowId} --to-checkpoint ${outcome.now} --force`;
  if (!outcome.restored) {
    log(color.red(`error: files in ${visibleText(root)} changed since the run's last checkpoint:`));
    log(changeLines(outcome.outside, { indent: '  ', limit: 20 }).join('\n'));
    log(`rewind --force overwrites them; they are kept as checkpoint ${outcome.now} (${undo} brings them back)`);
    if (values.json)
      outJson({ workflowId, rewound: false, current: outcome.now, outside: changeList(outcome.outside) });
    return EXIT.failed;
  }
  const { report } = outcome;
  const where = wanted.step !== undefined ? `its files after step ${wanted.step}` : `checkpoint ${to}`;
  log(
    `${color.bold('rewound')} ${visibleText(root)} to ${where}: ${report.written} written, ${report.removed} removed`,
  );
  for (const skipped of report.notRestored)
    log(color.yellow(`  not restored: ${visibleText(skipped.path)} (${visibleText(skipped.reason)})`));
  log(color.dim(`undo: ${undo}`));
  if (values.json && !values.conversation) outJson({ workflowId, rewound: true, to, previous: outcome.now, ...report });
  if (!values.conversation) return EXIT.finished;
  const { forkFromStep } = await import('../fork-from-step.js');
  return forkFromStep(
    [
      workflowId,
      '--from-step',
      String(wanted.step),
      ...(values.json ? ['--json'] : []),
      ...(values.detach ? ['--detach'] : []),
    ],
    config,
  );
}

function target(step: string | undefined, checkpoint: string | undefined): { step?: number; checkpoint?: ContentKey } {
  if ((step === undefined) === (checkpoint === undefined))
    throw new UsageError('rewind needs one of --to-step N or --to-checkpoint KEY');
  if (checkpoint !== undefined) {
    const key = parseKeyArgument(checkpoint);
    if (!key) throw new UsageError(`--to-checkpoint: "${checkpoint}" is not a checkpoint key (sha256:<64 hex digits>)`);
    return { checkpoint: key };
  }
  const number = Number(step);
  if (!Number.isInteger(number) || number < 0)
    throw new UsageError(`--to-step must be a step number (0 or more), got "${step}"`);
  return { step: number };
}

function changeList(changes: readonly FileChange[]): { path: string; change: string }[] {
  return changes.map(({ path, change }) => ({ path, change }));
}
