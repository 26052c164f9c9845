// Node: following one request of a conversation from this terminal (`run --session`, `continue`): the run's progress
// lines until it has answered the request and waits for the next one, or until it closes.
import { pollPause } from './poll-pause.js';
import type { agentWorkflow } from '../workflows/agent.js';
import type { AgentStateView } from '../protocol/run-messages.js';
import { stateQuery } from '../protocol/run-messages.js';
import { visibleLines, visibleText } from '../core/terminal-text.js';
import type { Connected } from './connect.js';
import { EXIT, exitCodeOf } from './exit-codes.js';
import { progressPrinter } from './follow.js';
import { color, log, out, outJson } from './output.js';
import { storedText } from './stored-text.js';
import { followLiveOutput } from './live-output.js';

const POLL_MS = 300;

/** Where the request being followed starts: the conversation's request count and the progress seen before it. */
export interface RequestStart {
  /** Requests the task had before this one (its answer is due once the run counts more and waits). */
  requestsBefore: number;
  /** Progress lines up to this sequence number were shown already (or belong to earlier requests). */
  afterSeq: number;
}

/** A new run's first request: the task itself. */
export const FIRST_REQUEST: RequestStart = { requestsBefore: 0, afterSeq: 0 };

/**
 * Prints the run's progress until it answered the request and waits for the next (exit 0), or closed (the exit code of
 * how it ended). Ctrl-C stops following; the run goes on.
 */
export async function followRequest(
  connected: Connected,
  workflowId: string,
  start: RequestStart,
  options: { json: boolean; stream: boolean },
): Promise<number> {
  // Without a run id the handle is the task's latest run, through every continue-as-new.
  const handle = connected.client.workflow.getHandle<typeof agentWorkflow>(workflowId);
  let closed = false;
  // The long poll for the run's close is cancelled when following ends: a session's may be days away.
  const stopWaiting = new AbortController();
  const closing = connected.client.connection
    .withAbortSignal(stopWaiting.signal, () => handle.result())
    .then(
      () => undefined,
      () => undefined,
    );
  void closing.finally(() => {
    closed = true;
  });
  const abort = new AbortController();
  const onInterrupt = (): void => abort.abort();
  process.once('SIGINT', onInterrupt);
  connected.keepWorkerAlive();
  // The model's output of this request as it streams: calls that start from now on.
  const live = await followLiveOutput(options.stream, workflowId, {
    from: 'start',
    json: options.json,
    since: Date.now(),
  });
  const printer = progressPrinter(workflowId, start.afterSeq, { quiet: options.json, ...(live ? { live } : {}) });
  try {
    while (!abort.signal.aborted) {
      const wasClosed = closed;
      // A query can fail while no worker polls yet (or a run hands over to the next); the run goes on: ask again.
      const view = await handle.query(stateQuery, printer.seen).catch(() => undefined);
      if (view) {
        printer.show(view);
        const answered = view.status === 'waiting_input' && (view.conversation?.count ?? 0) > start.requestsBefore;
        if (answered || wasClosed) {
          await live?.stop();
          return await printEnd(workflowId, view, options.json);
        }
      }
      await pollPause(POLL_MS, closing);
    }
    log(`detached; the run goes on: durable-agent watch ${workflowId}`);
    return EXIT.detached;
  } finally {
    await live?.stop();
    process.off('SIGINT', onInterrupt);
    stopWaiting.abort();
  }
}

/** The answer on stdout, how the run stands on stderr (what to type next when it waits). */
async function printEnd(workflowId: string, view: AgentStateView, json: boolean): Promise<number> {
  const answer = await storedText(view.answer);
  const waiting = view.status === 'waiting_input';
  if (json) {
    const { status, step, toolCalls, usage } = view;
    outJson({
      workflowId,
      status,
      answer,
      requests: view.conversation?.count ?? 1,
      steps: step,
      toolCalls,
      usage,
      ...(view.error ? { error: view.error } : {}),
    });
  } else {
    if (answer) out(`${visibleLines(answer)}\n`);
    if (view.error) log(color.red(`${view.status}: ${visibleLines(view.error)}`));
    const request = `request ${view.conversation?.count ?? 1}`;
    log(
      color.dim(
        waiting
          ? `${request} answered · waiting for the next: durable-agent continue ${visibleText(workflowId)} "…"`
          : `${view.status} · ${request} · ${view.step} steps · ${view.usage.totalTokens} tokens`,
      ),
    );
  }
  return waiting ? EXIT.finished : exitCodeOf(view.status);
}
