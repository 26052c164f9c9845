// Node: a run read through the SDK's handle (the reader of `watch`, of runs started over gRPC, and the one the HTTP
// reader falls back on).
import type { WorkflowHandle } from '@temporalio/client';
import { WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure, CancelledFailure, TerminatedFailure, TimeoutFailure } from '@temporalio/common';
import { stateQuery } from '../protocol/run-messages.js';
import type { agentWorkflow } from '../workflows/agent.js';
import type { FinalEnd, FollowOutcome, RunReader } from './run-reader.js';
import { outcomeOf } from './run-reader.js';

/** The reader of a run through the SDK's handle. */
export function handleReader(handle: WorkflowHandle<typeof agentWorkflow>): RunReader {
  let ended: Promise<FollowOutcome> | undefined;
  return {
    state: (afterSeq) => handle.query(stateQuery, afterSeq),
    ended: () =>
      (ended ??= handle.result().then(
        (result) => outcomeOf({ kind: 'completed', result }),
        (error: unknown) => outcomeOf(endOfFailure(error)),
      )),
    // Nothing to abandon: the pending result call ends with the connection, and a query is waited for.
    close: () => undefined,
  };
}

/** The ending a workflow's failure stands for, as the SDK's client reports it. */
function endOfFailure(error: unknown): FinalEnd {
  if (!(error instanceof WorkflowFailedError)) throw error;
  const cause = error.cause;
  if (cause instanceof CancelledFailure) return { kind: 'cancelled' };
  if (cause instanceof TerminatedFailure)
    return { kind: 'terminated', ...(cause.message ? { reason: cause.message } : {}) };
  if (cause instanceof TimeoutFailure) return { kind: 'timed-out' };
  const message = cause?.message ?? error.message;
  if (cause instanceof ApplicationFailure && cause.type === 'AgentRunFailed')
    return { kind: 'failed', message, type: cause.type, details: cause.details?.[0] };
  return { kind: 'failed', message };
}
