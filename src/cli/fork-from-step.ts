// Node: `fork`: a new run that goes on from a recorded run's state after one of its steps — to redo a run's tail with another
// model, or with more to say. The state is rebuilt by replaying the recorded run (history/fork-state); the workspace's
// files are whatever they are now.
import { randomBytes } from 'node:crypto';
import { mkdir, readdir, realpath } from 'node:fs/promises';
import path from 'node:path';
import type { Config } from '../config.js';
import type { ModelSelection } from '../protocol/model.js';
import type { ForkOrigin } from '../core/run/fork.js';
import { forkState } from '../core/run/fork.js';
import type { AgentInput } from '../core/state.js';
import { checkpointIgnore } from '../core/state.js';
import type { agentWorkflow } from '../workflows/agent.js';
import { connect, runUrl } from './connect.js';
import { modelOfBaseUrl } from './endpoint-models.js';
import { followStarted } from './follow.js';
import { handleReader } from './handle-reader.js';
import { madeConnection } from './lazy-connected.js';
import { followLiveOutput, wantsLiveOutput } from './live-output.js';
import { EXIT, UsageError } from './exit-codes.js';
import { parseCommandLine } from './option-table.js';
import { forkOptions } from './options/run.js';
import { ForkStateError, stateAfterStep } from '../history/fork-state.js';
import { WorkflowBundleError } from '../history/replay-worker.js';
import { visibleLines, visibleText } from '../core/terminal-text.js';
import { color, log, printBundleError } from './output.js';
import type { ChainRun } from '../history/run-chain.js';
import { readChain } from '../history/run-chain.js';
import { operatorSigner } from './operator-signing.js';
import { hostToolQueue } from '../config.js';
import { taskOf } from '../history/run-tree.js';
import { filesAfter, lastStep } from '../history/workspace-range.js';
import { compareCheckpoints } from '../activities/checkpoint/compare.js';
import { restoreChanges } from '../activities/checkpoint/restore.js';
import { cliStore } from './cli-store.js';
import { changeLines, restoreWorkspace } from './workspace-files.js';

/**
 * The fork's files: as they are (no option), the original's after the step set back in place (`--in-place`, refused
 * like `rewind` when they changed outside the run), or made in a new directory (`--workspace`), which then is the
 * fork's workspace, its tools pinned to this host. Undefined when the files could not be placed (said why).
 */
async function placeFiles(
  workflowId: string,
  values: { workspace?: string | undefined; 'in-place': boolean; force: boolean; 'tool-queue'?: string | undefined },
  config: Config,
  chain: ChainRun[],
  fromStep: number,
  input: AgentInput,
): Promise<'as they are' | 'placed' | undefined> {
  if (values['tool-queue'] !== undefined && values.workspace === undefined)
    throw new UsageError("--tool-queue names the host of the fork's new --workspace DIR; give --workspace too");
  if (values.workspace === undefined && !values['in-place']) return 'as they are';
  if (values.workspace !== undefined && values['in-place'])
    throw new UsageError(
      '--workspace DIR makes a new workspace; --in-place sets back the original: give one or the other',
    );
  const run = taskOf(chain);
  const target = filesAfter(run, fromStep).checkpoint;
  const store = cliStore();
  const ignore = checkpointIgnore(input);
  if (values['in-place']) {
    const root = await realpath(input.workspace).catch(() => undefined);
    if (!root) {
      log(color.red(`error: the run's workspace ${visibleText(input.workspace)} is not on this machine`));
      return undefined;
    }
    const last = filesAfter(run, lastStep(run)).checkpoint;
    const outcome = await restoreWorkspace(store, root, {
      target,
      last,
      force: values.force,
      ...(ignore ? { ignore } : {}),
    });
    if (!outcome.restored) {
      log(
        color.red(
          `error: files in ${visibleText(root)} changed since the run's last checkpoint (fork --force overwrites them):`,
        ),
      );
      log(changeLines(outcome.outside, { indent: '  ', limit: 20 }).join('\n'));
      return undefined;
    }
    log(
      color.dim(
        `files set back to step ${fromStep}; undo: durable-agent rewind ${workflowId} --to-checkpoint ${outcome.now} --force`,
      ),
    );
    return 'placed';
  }
  const directory = path.resolve(values.workspace!);
  await mkdir(directory, { recursive: true });
  if ((await readdir(directory)).length > 0)
    throw new UsageError(`--workspace ${directory} is not empty: give a new or empty directory`);
  const root = await realpath(directory);
  if (target !== null) await restoreChanges(store, root, await compareCheckpoints(store, null, target));
  input.workspace = root;
  // The new directory is on this host: the fork's file and shell tools must run here.
  const toolTaskQueue =
    values['tool-queue'] ??
    config.toolTaskQueue ??
    (config.temporalAddress ? input.toolTaskQueue : hostToolQueue(config.taskQueue));
  if (toolTaskQueue) input.toolTaskQueue = toolTaskQueue;
  else delete input.toolTaskQueue;
  return 'placed';
}

/** `fork ID --from-step N [--model M] [--provider P] [--base-url URL] [--task-append TEXT] [--run-id R] [--detach] [--json]` */
export async function forkFromStep(argv: string[], config: Config): Promise<number> {
  const { values, positionals } = parseCommandLine(forkOptions, argv);
  const stream = wantsLiveOutput(values);
  const workflowId = positionals[0];
  if (!workflowId || positionals.length > 1)
    throw new UsageError('fork needs a run id and a step: durable-agent fork ID --from-step N');
  const fromStep = Number(values['from-step']);
  if (values['from-step'] === undefined || !Number.isInteger(fromStep) || fromStep < 0)
    throw new UsageError(`--from-step must be a step number (0 or more), got "${values['from-step'] ?? ''}"`);
  const provider = values.provider;

  // A new endpoint without a model: the model it serves (asked before the replay, which takes a while).
  const model = values.model ?? (await modelOfBaseUrl(values['base-url'], provider, undefined));

  const connected = await connect(config, { needWorker: true });
  try {
    const chain: ChainRun[] = await readChain(connected.client, workflowId, values['run-id']);
    // The state after step N is taken where step N+1 begins: in the run that made (or is making) step N+1's model call.
    const source = chain.find((link) => link.run.steps.some((step) => step.step === fromStep + 1));
    if (!source) {
      const last = Math.max(0, ...chain.flatMap((link) => link.run.steps.map((step) => step.step)));
      throw new UsageError(
        `--from-step ${fromStep}: ${workflowId} has no step after it (its last step is ${last}); fork from a step before its last`,
      );
    }
    let snapshot;
    try {
      snapshot = await stateAfterStep(source.history, workflowId, fromStep);
    } catch (error) {
      if (!(error instanceof ForkStateError)) throw error;
      if (error.cause instanceof WorkflowBundleError) printBundleError(error.cause);
      log(color.red(`error: cannot fork ${visibleText(workflowId)}: ${visibleLines(error.message)}`));
      return EXIT.failed;
    }
    if (!snapshot) {
      log(
        color.red(
          `error: cannot fork ${workflowId}: replaying run ${source.run.runId} never reached the end of step ${fromStep}`,
        ),
      );
      return EXIT.failed;
    }

    const forkId = `${workflowId}-fork-${randomBytes(4).toString('hex')}`;
    const origin: ForkOrigin = { workflowId, runId: source.run.runId, step: fromStep };
    // The original's proof is for the original's start; the fork is signed for its own.
    const { authorization: _originalProof, ...original } = snapshot.input;
    // A new provider brings its own endpoint and model; a new model alone keeps the original's endpoint.
    const selection: ModelSelection = {
      ...(provider ? { provider } : original.selection),
      ...(model ? { model } : {}),
      ...(values['base-url'] ? { baseUrl: values['base-url'] } : {}),
    };
    const input: AgentInput = {
      ...original,
      selection,
      resume: forkState(snapshot.state, {
        taskId: forkId,
        origin,
        ...(values['task-append'] ? { taskAppend: values['task-append'] } : {}),
      }),
    };
    // The original's fallbacks were chosen for its model; a fork to another model gets none.
    if (provider || model) delete input.fallbackSelections;
    const files = await placeFiles(workflowId, values, config, chain, fromStep, input);
    if (files === undefined) return EXIT.failed;
    const signer = operatorSigner(connected);
    const handle = await connected.client.workflow.start<typeof agentWorkflow>('agentWorkflow', {
      workflowId: forkId,
      taskQueue: connected.taskQueue,
      args: [signer ? signer.run(forkId, input) : input],
      memo: {
        task: original.task,
        cwd: input.workspace,
        forkedFrom: origin,
        ...(values['task-append'] ? { taskAppend: values['task-append'] } : {}),
      },
      staticSummary: `fork of ${workflowId} after step ${fromStep}`,
      staticDetails: `forked from ${workflowId} (run ${origin.runId}) after step ${fromStep} · model: ${selection.model ?? 'worker default'} · workspace: ${input.workspace}`,
    });
    const link = runUrl(connected, forkId, handle.firstExecutionRunId);
    log(`${color.bold('fork')} ${forkId}${link ? `  ${color.dim(link)}` : ''}`);
    log(
      color.dim(
        files === 'as they are'
          ? `from ${workflowId} after step ${fromStep}; the workspace's files are as they are now, not as they were then (an edit of a file changed since it was read asks for a fresh read; --workspace DIR or --in-place start from that step's files)`
          : `from ${workflowId} after step ${fromStep}, in ${visibleText(input.workspace)} with the files it had then`,
      ),
    );
    const run = { workflowId: forkId, runId: handle.firstExecutionRunId, reader: handleReader(handle) };
    return await followStarted(madeConnection(connected), run, {
      link,
      json: values.json,
      detach: values.detach,
      prompt: original.askPolicy === 'prompt' && Boolean(process.stdin.isTTY),
      ...(signer ? { signer } : {}),
      live: (id) => followLiveOutput(stream, id, { from: 'start', json: values.json }),
    });
  } finally {
    await connected.close();
  }
}
