// The pure rules of control messages: a signature's window, pause and resume, and the interrupt's note for the model.
import { describe, expect, it } from 'vitest';
import { signatureAgeRefusal } from '../../../src/core/run/inbox.js';
import { interruptNote, recordInterrupt } from '../../../src/core/run/interrupt.js';
import { enterPause, requestPause, resume, resumeRefusal } from '../../../src/core/run/pause.js';
import { initialState } from '../../../src/core/state.js';
import { CONTROL_SIGNATURE_WINDOW_MS } from '../../../src/protocol/run-authorization.js';

describe('signatureAgeRefusal', () => {
  it('takes a message signed within its window and refuses one replayed after it, or from the future', () => {
    const now = 1_000_000_000;
    expect(signatureAgeRefusal(now - CONTROL_SIGNATURE_WINDOW_MS, now)).toBeUndefined();
    expect(signatureAgeRefusal(now - CONTROL_SIGNATURE_WINDOW_MS - 1000, now)).toMatch(/signed 601 s ago/);
    expect(signatureAgeRefusal(now + CONTROL_SIGNATURE_WINDOW_MS + 1000, now)).toMatch(/signed -601 s ago/);
  });
});

describe('pause and resume', () => {
  it('pauses at the boundary, keeps the first reason, refuses a resume when not paused', () => {
    const state = initialState('task-1', 'system', 'task');
    expect(resumeRefusal(state)).toMatch(/not paused \(it is running\)/);
    requestPause(state, { id: 'p-1', text: 'overnight', sent_by: 'ann' }, 10);
    requestPause(state, { id: 'p-2', text: 'other' }, 20);
    expect(state.status).toBe('running');
    enterPause(state, 30);
    expect(state.status).toBe('paused');
    expect(state.progress.at(-1)?.text).toBe(
      'paused by ann after step 0: overnight — resume with durable-agent resume task-1',
    );
    resume(state, { id: 'r-1' }, 5030);
    expect(state).toMatchObject({ status: 'running', pause: undefined });
    expect(state.controlIds).toEqual(['p-1', 'p-2', 'r-1']);
  });

  it('withdraws a pause that has not taken effect', () => {
    const state = initialState('task-1', 'system', 'task');
    requestPause(state, { id: 'p-1' }, 10);
    resume(state, { id: 'r-1' }, 20);
    expect(state.pause).toBeUndefined();
    expect(state.progress.at(-1)?.text).toBe('pause p-1 withdrawn before it took effect');
  });
});

describe('interrupt', () => {
  it('queues a note of what was interrupted with the message, and nothing when there is nothing to say', () => {
    expect(interruptNote(['Bash call_2'], { id: 'i', text: 'use src/' })).toBe(
      '[The operator interrupted Bash call_2. What was cancelled did not finish; results that came back before it are kept.]\n\nuse src/',
    );
    expect(interruptNote([], { id: 'i', text: 'use src/' })).toBe('use src/');
    const state = initialState('task-1', 'system', 'task');
    expect(recordInterrupt(state, { id: 'i-1' }, [], 10)).toBeUndefined();
    expect(state.inbox ?? []).toEqual([]);
    expect(state.controlIds).toEqual(['i-1']);
    expect(recordInterrupt(state, { id: 'i-2' }, ['model call of step 1'], 20)).toBe(1);
  });
});
