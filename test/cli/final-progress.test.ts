import { describe, expect, it } from 'vitest';
import { unseenFinalProgress } from '../../src/cli/final-progress.js';
import { emptyUsage, initialState, addProgress, RESULT_PROGRESS_ENTRIES, toResult } from '../../src/core/state.js';
import type { AgentResult, ProgressEntry } from '../../src/protocol/run-report.js';

const entry = (seq: number): ProgressEntry => ({ seq, kind: 'tool', step: seq, text: `line ${seq}` });
const result = (lastProgress?: ProgressEntry[]): AgentResult => ({
  status: 'completed',
  answer: 'done',
  steps: 3,
  toolCalls: 2,
  usage: emptyUsage(),
  ...(lastProgress ? { lastProgress } : {}),
});

describe('the progress lines a follower prints when its run has ended', () => {
  it('are the result’s lines after the last one it printed', () => {
    expect(unseenFinalProgress(result([entry(4), entry(5), entry(6)]), 4)).toEqual([entry(5), entry(6)]);
    expect(unseenFinalProgress(result([entry(4), entry(5), entry(6)]), 3)).toEqual([entry(4), entry(5), entry(6)]);
  });

  it('are none when it printed them all already', () => {
    expect(unseenFinalProgress(result([entry(4), entry(5)]), 5)).toEqual([]);
  });

  it('have to be asked for when lines are missing between the two, or the result carries none', () => {
    expect(unseenFinalProgress(result([entry(7), entry(8)]), 5)).toBeUndefined();
    expect(unseenFinalProgress(result(), 5)).toBeUndefined();
    expect(unseenFinalProgress(result([]), 0)).toBeUndefined();
  });

  it('come from a result that carries the run’s last RESULT_PROGRESS_ENTRIES lines', () => {
    const state = initialState('task', 'system', 'do it');
    for (let index = 0; index < RESULT_PROGRESS_ENTRIES + 5; index++) {
      addProgress(state, { kind: 'tool', step: 1, text: `call ${index}` });
    }
    const last = toResult(state).lastProgress!;
    expect(last).toHaveLength(RESULT_PROGRESS_ENTRIES);
    expect(last.at(-1)).toMatchObject({
      seq: RESULT_PROGRESS_ENTRIES + 5,
      text: `call ${RESULT_PROGRESS_ENTRIES + 4}`,
    });
    expect(unseenFinalProgress(toResult(state), 4)).toBeUndefined();
    expect(unseenFinalProgress(toResult(state), 20)?.map((line) => line.seq)).toEqual([21, 22, 23, 24, 25]);
  });

  it('are not carried by a sub-agent’s result, which its parent’s history records', () => {
    const state = initialState('task', 'system', 'do it');
    addProgress(state, { kind: 'tool', step: 1, text: 'call' });
    const parent = { rootWorkflowId: 'root', parentWorkflowId: 'root', path: 'task-1-0', depth: 1 };
    expect(toResult(state, { parent }).lastProgress).toBeUndefined();
  });
});
