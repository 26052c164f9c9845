// Node: a model call the server gave up on while this worker was still making it — the server restarted, or could not
// be reached for longer than the heartbeat timeout — is left running rather than aborted, and the next attempt of the
// same activity on this worker takes its answer instead of asking (and paying) again. A call cancelled for any other
// reason (an interrupt, a cancelled run, the worker shutting down) is aborted as before.
import type { Context } from '@temporalio/activity';
import { CancelledFailure } from '@temporalio/common';

interface LeftRunning<T> {
  answer: Promise<T>;
  controller: AbortController;
}

/** How long an answer nobody came back for is kept: the next attempt went to another worker, or never came. */
const KEPT_MS = 5 * 60_000;

/** The calls of one worker that a given-up attempt left running, by activity (workflow, run, activity id). */
export class LeftRunningCalls<T> {
  private readonly calls = new Map<string, LeftRunning<T>>();

  /** Calls left running now (for tests and the worker's own accounting). */
  get size(): number {
    return this.calls.size;
  }

  /**
   * `start(signal)` for this attempt of `context`'s activity, or the call an earlier attempt left running. Rejects
   * with the attempt's cancellation when it is cancelled; the call itself stops only when nobody can use its answer.
   */
  run(context: Context | undefined, start: (signal: AbortSignal) => Promise<T>): Promise<T> {
    if (!context || context.info.isLocal) return start(new AbortController().signal);
    const { workflowExecution, activityId } = context.info;
    const key = `${workflowExecution?.workflowId}/${workflowExecution?.runId}/${activityId}`;
    const call = this.calls.get(key) ?? this.begin(start);
    this.calls.delete(key);
    const cancelled = context.cancellationSignal;
    return new Promise<T>((resolve, reject) => {
      const onCancel = (): void => {
        if (givenUpByServer(context)) this.leave(key, call);
        else call.controller.abort(cancelled.reason);
        reject(cancelled.reason instanceof CancelledFailure ? cancelled.reason : new CancelledFailure('cancelled'));
      };
      if (cancelled.aborted) return onCancel();
      cancelled.addEventListener('abort', onCancel, { once: true });
      call.answer.then(resolve, reject).finally(() => cancelled.removeEventListener('abort', onCancel));
    });
  }

  private begin(start: (signal: AbortSignal) => Promise<T>): LeftRunning<T> {
    const controller = new AbortController();
    const answer = start(controller.signal);
    // An answer left for an attempt that never comes must not be an unhandled rejection.
    answer.catch(() => undefined);
    return { answer, controller };
  }

  private leave(key: string, call: LeftRunning<T>): void {
    this.calls.set(key, call);
    setTimeout(() => {
      if (this.calls.get(key) !== call) return;
      this.calls.delete(key);
      call.controller.abort(new CancelledFailure('no attempt came back for this answer'));
    }, KEPT_MS).unref();
  }
}

/** The server no longer has this attempt (its heartbeat or start-to-close timed out, or it was lost), nobody cancelled it. */
function givenUpByServer(context: Context): boolean {
  const details = context.cancellationDetails;
  return Boolean(details && (details.notFound || details.timedOut) && !details.cancelRequested);
}
