// A call whose attempt the server gave up on is left running for the next attempt on the same worker; one cancelled
// by anyone (an interrupt, a cancelled run) is aborted.
import { Context } from '@temporalio/activity';
import { ActivityCancellationDetails, CancelledFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { describe, expect, it } from 'vitest';
import { LeftRunningCalls } from '../../src/activities/left-running-calls.js';

const ids = { workflowExecution: { workflowId: 'wf', runId: 'run' }, activityId: '7' };

/** A call that answers after `ms`, counting how often it was started and whether its signal was aborted. */
function slowCall(ms: number) {
  const seen = { started: 0, aborted: 0 };
  const start = (signal: AbortSignal) => {
    seen.started++;
    return new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => resolve(`answer ${seen.started}`), ms);
      signal.addEventListener('abort', () => {
        seen.aborted++;
        clearTimeout(timer);
        reject(new Error('aborted'));
      });
    });
  };
  return { seen, start };
}

describe('LeftRunningCalls', () => {
  it('gives the answer of an attempt the server gave up on to the next attempt, asking once', async () => {
    const calls = new LeftRunningCalls<string>();
    const { seen, start } = slowCall(300);
    const first = new MockActivityEnvironment({ ...ids, attempt: 1 });
    const pending = first.run(() => calls.run(Context.current(), start));
    setTimeout(() => first.cancel('NOT_FOUND', new ActivityCancellationDetails({ notFound: true })), 50);
    await expect(pending).rejects.toBeInstanceOf(CancelledFailure);
    expect(calls.size).toBe(1);

    const second = new MockActivityEnvironment({ ...ids, attempt: 2 });
    await expect(second.run(() => calls.run(Context.current(), start))).resolves.toBe('answer 1');
    expect(seen).toEqual({ started: 1, aborted: 0 });
    expect(calls.size).toBe(0);
  });

  it('aborts a call cancelled by anyone, and a later attempt asks again', async () => {
    const calls = new LeftRunningCalls<string>();
    const { seen, start } = slowCall(300);
    const first = new MockActivityEnvironment({ ...ids, attempt: 1 });
    const pending = first.run(() => calls.run(Context.current(), start));
    setTimeout(() => first.cancel('CANCELLED', new ActivityCancellationDetails({ cancelRequested: true })), 50);
    await expect(pending).rejects.toBeInstanceOf(CancelledFailure);
    expect(seen.aborted).toBe(1);
    expect(calls.size).toBe(0);

    const second = new MockActivityEnvironment({ ...ids, attempt: 2 });
    await expect(second.run(() => calls.run(Context.current(), start))).resolves.toBe('answer 2');
    expect(seen.started).toBe(2);
  });

  it('keeps the answers of different activities apart', async () => {
    const calls = new LeftRunningCalls<string>();
    const { seen, start } = slowCall(100);
    const first = new MockActivityEnvironment({ ...ids, attempt: 1 });
    const pending = first.run(() => calls.run(Context.current(), start));
    first.cancel('TIMED_OUT', new ActivityCancellationDetails({ timedOut: true }));
    await expect(pending).rejects.toBeInstanceOf(CancelledFailure);
    const other = new MockActivityEnvironment({ ...ids, activityId: '8', attempt: 2 });
    await expect(other.run(() => calls.run(Context.current(), start))).resolves.toBe('answer 2');
    expect(seen.started).toBe(2);
    expect(calls.size).toBe(1);
  });
});
