// Workflow-safe: a session run's wait for the next request (core/run/session) — a durable `condition` holding no
// worker slot, woken by a steering message (protocol/run-control `sendMessage` / `userMessage`) or its idle timer.
import { condition, setHandler, workflowInfo } from '@temporalio/workflow';
import { hasQueuedMessages } from '../core/run/inbox.js';
import type { TaskSnapshot } from '../core/run/session.js';
import {
  beginRequest,
  closeIdleSession,
  conversationOf,
  formatDuration,
  shouldHandOverWhileWaiting,
  taskSnapshotQuery,
} from '../core/run/session.js';
import type { AgentInput, AgentState } from '../core/state.js';
import type { ModelRequest } from '../protocol/model.js';
import { modelCallSummary } from './activities.js';

/** What the wait ended with: the next request begins, the run closes idle, or it continues as new first. */
export type SessionWait = 'request' | 'idle' | 'continue';

/** The conversation side of one workflow run. */
export class Session {
  /** Requests the task had when this run began: a run hands over after REQUESTS_PER_RUN of its own. */
  private readonly requestsAtStart: number;

  constructor(
    private readonly state: AgentState,
    private readonly input: AgentInput,
  ) {
    if (input.session) conversationOf(state, input.task);
    this.requestsAtStart = state.conversation?.count ?? 1;
    // The CLI's snapshot carries no proof: the next run of the chain is signed for its own start.
    setHandler(
      taskSnapshotQuery,
      (): TaskSnapshot => {
        const { resume: _state, authorization: _proof, ...rest } = input;
        return { input: rest, state };
      },
      { description: "The run's input (without its proof) and state: what `durable-agent continue` goes on from." },
    );
  }

  /**
   * Waits for the next request: a message already queued begins it at once; otherwise the run waits up to the idle
   * window (a run continued after it closed, without a session, has none: its request is queued before it starts).
   */
  async next(publish: () => void): Promise<SessionWait> {
    const { state, input } = this;
    if (shouldHandOverWhileWaiting(state, this.requestsAtStart, workflowInfo().continueAsNewSuggested))
      return 'continue';
    publish();
    const idleMs = input.session?.idleMs ?? 0;
    const arrived =
      hasQueuedMessages(state) ||
      (idleMs > 0 &&
        (await condition(() => hasQueuedMessages(state), idleMs, {
          summary: `waiting for the next request (closes after ${formatDuration(idleMs)} idle)`,
        })));
    if (!arrived) {
      closeIdleSession(state, idleMs);
      return 'idle';
    }
    beginRequest(state, input, Date.now());
    publish();
    return 'request';
  }
}

/** The label of a model call: the first one of a follow-up request names it in the Web UI. */
export function modelCallLabel(request: ModelRequest): string | undefined {
  const begun = request.request;
  return begun ? `${modelCallSummary(request)} (request ${begun.n}: ${begun.text})` : undefined;
}
