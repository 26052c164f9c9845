// A conversation's rules (core/run/session): each request's step limit, when a waiting run hands over, what it hands
// over, and which closed tasks go on.
import { describe, expect, it } from 'vitest';
import { addEvent, addProgress, initialState } from '../../../src/core/state.js';
import type { AgentInput, AgentState } from '../../../src/core/state.js';
import { queueMessage } from '../../../src/core/run/inbox.js';
import {
  HANDED_OVER_PROGRESS,
  REQUESTS_PER_RUN,
  beginRequest,
  continuationRefusal,
  continuedState,
  handOverWhileWaiting,
  requestBegunAt,
  shouldHandOverWhileWaiting,
  stepLimit,
  waitForRequest,
} from '../../../src/core/run/session.js';
import { stepToolChoice } from '../../../src/core/run/tool-choice.js';

const input: AgentInput = {
  task: 'first request',
  workspace: '/w',
  selection: { model: 'm' },
  maxSteps: 3,
  mode: 'default',
  askPolicy: 'deny',
  session: { idleMs: 60_000 },
};

/** A session that answered `requests` requests, each in one step. */
function answered(requests: number): AgentState {
  const state = initialState('task-1', 'system', input.task);
  for (let n = 1; n <= requests; n++) {
    if (n > 1) {
      queueMessage(state, { id: `r-${n}`, text: `request ${n}` }, n);
      beginRequest(state, input, n);
      state.inbox = [];
    }
    state.step += 1;
    waitForRequest(state, input);
  }
  return state;
}

describe('a conversation', () => {
  it("gives each request the run's maxSteps from the step it began at", () => {
    const state = answered(1);
    state.step = 3;
    expect(stepLimit(state, input)).toBe(3);
    queueMessage(state, { id: 'next', text: 'and now this' }, 10);
    beginRequest(state, input, 10);
    expect(stepLimit(state, input)).toBe(6);
    state.step = 4;
    // Not the last step of the new request: the model may call tools.
    expect(stepToolChoice(state, input, ['Bash'])).toBe('auto');
    state.step = 6;
    expect(stepToolChoice(state, input, ['Bash'])).toBe('none');
    expect(state.conversation?.requests.at(-1)).toMatchObject({ n: 2, step: 4, text: 'and now this', id: 'next' });
    expect(requestBegunAt(state, 4)).toMatchObject({ n: 2 });
    expect(requestBegunAt(state, 5)).toBeUndefined();
  });

  it('hands over while waiting after REQUESTS_PER_RUN requests of this run or when Temporal suggests it, never with a request queued', () => {
    const state = answered(REQUESTS_PER_RUN);
    expect(shouldHandOverWhileWaiting(state, 1, false)).toBe(false);
    expect(shouldHandOverWhileWaiting(answered(REQUESTS_PER_RUN + 1), 1, false)).toBe(true);
    expect(shouldHandOverWhileWaiting(state, 1, true)).toBe(true);
    // A run that has taken no request of its own yet does not hand over again.
    expect(shouldHandOverWhileWaiting(state, REQUESTS_PER_RUN, true)).toBe(false);
    queueMessage(state, { id: 'waiting', text: 'next' }, 1);
    expect(shouldHandOverWhileWaiting(state, 1, true)).toBe(false);
  });

  it('hands over recent progress and trace only, keeping refusals of unsigned control input', () => {
    const state = answered(2);
    addEvent(state, 'control_refused', 0, { text: 'refused an unsigned message' });
    for (let index = 0; index < 600; index++) {
      addProgress(state, { kind: 'step', step: 1, text: `line ${index}` });
      addEvent(state, 'noise', index, {});
    }
    const next = handOverWhileWaiting(state);
    expect(next.status).toBe('waiting_input');
    expect(next.progress).toHaveLength(HANDED_OVER_PROGRESS);
    expect(next.progress.at(-1)?.text).toBe('line 599');
    expect(next.events.filter((event) => event.type === 'control_refused')).toHaveLength(1);
    expect(next.events.length).toBeLessThan(100);
  });

  it('goes on from a completed or failed task, or one cancelled while it waited; not from one cancelled mid-step', () => {
    const done = { ...answered(1), status: 'completed' as const };
    expect(continuationRefusal(done)).toBeUndefined();
    expect(continuationRefusal({ ...done, status: 'failed' })).toBeUndefined();
    expect(continuationRefusal({ ...answered(1), status: 'cancelled' })).toBeUndefined();
    const working = initialState('task-2', 'system', 'work');
    expect(continuationRefusal({ ...working, status: 'cancelled' })).toMatch(/in the middle of a step; fork it/);
    expect(continuationRefusal({ ...working, status: 'terminated' })).toMatch(/ended terminated/);

    const next = continuedState(
      { ...working, status: 'failed', error: 'model down' },
      'work',
      { id: 'c-1', text: 'retry' },
      5,
    );
    expect(next).toMatchObject({ status: 'waiting_input', runs: 1, controlIds: ['c-1'] });
    expect(next.error).toBeUndefined();
    expect(next.inbox?.map((message) => message.text)).toEqual(['retry']);
    expect(next.conversation).toMatchObject({ count: 1, waiting: true, requests: [{ n: 1, text: 'work' }] });
  });
});
