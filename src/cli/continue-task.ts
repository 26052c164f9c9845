// Node: the next request of a task's conversation (`continue`, `run --continue`). An open run takes it as a steering
// message (read at its next step boundary; a waiting session begins it at once); a closed task goes on in the next run
// of its chain, started under the same workflow id from the state its last run ended with (the `taskSnapshot` query),
// with the request queued, signed like every start from this CLI.
import { randomUUID } from 'node:crypto';
import {
  QueryNotRegisteredError,
  WorkflowExecutionAlreadyStartedError,
  WorkflowNotFoundError,
} from '@temporalio/client';
import type { Config } from '../config.js';
import type { TaskSnapshot } from '../core/run/session.js';
import { continuationRefusal, continuedState, formatDuration, taskSnapshotQuery } from '../core/run/session.js';
import type { AgentInput } from '../core/state.js';
import { visibleLines, visibleText } from '../core/terminal-text.js';
import type { ControlRequest } from '../protocol/run-control.js';
import { stateQuery } from '../protocol/run-messages.js';
import type { agentWorkflow } from '../workflows/agent.js';
import type { Connected } from './connect.js';
import { connect, runUrl } from './connect.js';
import { EXIT } from './exit-codes.js';
import type { RequestStart } from './follow-request.js';
import { followRequest } from './follow-request.js';
import { operatorName } from './operator.js';
import { operatorSigner } from './operator-signing.js';
import { color, log, out, outJson } from './output.js';
import { firstLine } from './run-input.js';
import { ControlRefused, sendControl } from './send-control.js';

/** How the request goes: its id, whether to follow it, and what a continued run changes. */
export interface ContinueOptions {
  id?: string;
  detach: boolean;
  json: boolean;
  /** Shows the request's live output (cli/live-output). */
  stream: boolean;
  /** A continued run becomes (or stays) a session with this idle window. */
  idleMs?: number;
  model?: string;
  baseUrl?: string;
}

/** Sends `text` as the next request of `workflowId`'s conversation and follows it; the exit code says how it went. */
export async function continueTask(
  config: Config,
  workflowId: string,
  text: string,
  options: ContinueOptions,
): Promise<number> {
  const connected = await connect(config, { needWorker: true });
  try {
    connected.keepWorkerAlive();
    const handle = connected.client.workflow.getHandle<typeof agentWorkflow>(workflowId);
    let open: boolean;
    try {
      open = (await handle.describe()).status.name === 'RUNNING';
    } catch (error) {
      if (!(error instanceof WorkflowNotFoundError)) throw error;
      log(color.red(`error: no run ${visibleText(workflowId)}`));
      return EXIT.usage;
    }
    if (open) {
      const sent = await sendToOpenRun(connected, workflowId, text, options);
      if (sent !== 'closed') return sent;
    }
    return await startNextRun(connected, workflowId, text, options);
  } finally {
    await connected.close();
  }
}

/** The open run takes the request as a message; 'closed' when it closed before it could. */
async function sendToOpenRun(
  connected: Connected,
  workflowId: string,
  text: string,
  options: ContinueOptions,
): Promise<number | 'closed'> {
  const before = await connected.client.workflow
    .getHandle<typeof agentWorkflow>(workflowId)
    .query(stateQuery)
    .catch(() => undefined);
  try {
    const receipt = await sendControl(connected, workflowId, 'message', {
      text,
      ...(options.id ? { id: options.id } : {}),
    });
    const waited = receipt.status === 'waiting_input';
    if (options.detach) {
      if (options.json) outJson({ workflowId, ...receipt });
      else
        out(
          `request ${visibleText(receipt.id)} sent to ${visibleText(workflowId)}${receipt.duplicate ? ' (already taken: not applied again)' : ''}: ${waited ? 'it begins now' : 'read at its next step'}\n`,
        );
      return EXIT.finished;
    }
    if (!options.json)
      log(
        color.dim(`request sent to ${visibleText(workflowId)}: ${waited ? 'it begins now' : 'read at its next step'}`),
      );
    const start: RequestStart = {
      requestsBefore: before?.conversation?.count ?? 1,
      afterSeq: Math.max(0, ...(before?.progress ?? []).map((entry) => entry.seq)),
    };
    return await followRequest(connected, workflowId, start, { json: options.json, stream: options.stream });
  } catch (error) {
    if (!(error instanceof ControlRefused)) throw error;
    if (error.closed) return 'closed';
    log(color.red(`error: ${visibleText(workflowId)} did not take the request: ${visibleLines(error.reason)}`));
    return EXIT.failed;
  }
}

/** The task's latest run is closed: its state, with the request queued, starts the next run of the chain. */
async function startNextRun(
  connected: Connected,
  workflowId: string,
  text: string,
  options: ContinueOptions,
): Promise<number> {
  let snapshot: TaskSnapshot;
  try {
    // Temporal answers a closed run's query by replaying its history on a worker.
    snapshot = await connected.client.workflow.getHandle(workflowId).query(taskSnapshotQuery);
  } catch (error) {
    const reason =
      error instanceof QueryNotRegisteredError
        ? 'its workflow code predates conversations; fork it instead (durable-agent fork ID --from-step N)'
        : error instanceof Error
          ? error.message
          : String(error);
    log(color.red(`error: cannot continue ${visibleText(workflowId)}: ${visibleLines(reason)}`));
    return EXIT.failed;
  }
  const refusal = continuationRefusal(snapshot.state);
  if (refusal !== undefined) {
    log(color.red(`error: cannot continue ${visibleText(workflowId)}: ${visibleLines(refusal)}`));
    return EXIT.failed;
  }
  const request: ControlRequest = { id: options.id ?? `message-${randomUUID()}`, text, sent_by: operatorName() };
  const previous = snapshot.input;
  const session = options.idleMs !== undefined ? { idleMs: options.idleMs } : previous.session;
  const input: AgentInput = {
    ...previous,
    selection: {
      ...previous.selection,
      ...(options.model ? { model: options.model } : {}),
      ...(options.baseUrl ? { baseUrl: options.baseUrl } : {}),
    },
    ...(session ? { session } : {}),
    searchAttributes: await connected.hasSearchAttributes(),
    resume: continuedState(snapshot.state, previous.task, request, Date.now()),
  };
  const signer = operatorSigner(connected);
  let handle;
  try {
    handle = await connected.client.workflow.start<typeof agentWorkflow>('agentWorkflow', {
      workflowId,
      taskQueue: connected.taskQueue,
      args: [signer ? signer.run(workflowId, input) : input],
      memo: { task: previous.task, cwd: previous.workspace },
      staticSummary: firstLine(previous.task),
      staticDetails: `continued after its run ended ${snapshot.state.status} · model: ${input.selection.model ?? 'worker default'} · workspace: ${previous.workspace}${session ? ` · session, idle ${formatDuration(session.idleMs)}` : ''}`,
    });
  } catch (error) {
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
    log(color.red(`error: a run of ${visibleText(workflowId)} started meanwhile; send the request again`));
    return EXIT.failed;
  }
  const link = runUrl(connected, workflowId, handle.firstExecutionRunId);
  if (options.json && options.detach) {
    outJson({ workflowId, runId: handle.firstExecutionRunId, status: 'running', id: request.id });
    return EXIT.detached;
  }
  log(`${color.bold('continue')} ${visibleText(workflowId)}${link ? `  ${color.dim(link)}` : ''}`);
  log(
    color.dim(
      `a new run from the state the last one ended with (${snapshot.state.status}); the files are as they are now`,
    ),
  );
  if (options.detach) {
    log(`detached; follow it with: durable-agent watch ${workflowId}`);
    return EXIT.detached;
  }
  const start: RequestStart = {
    requestsBefore: snapshot.state.conversation?.count ?? 1,
    afterSeq: snapshot.state.progressSeq,
  };
  return await followRequest(connected, workflowId, start, { json: options.json, stream: options.stream });
}
