// The run's rules between steps (core/run): continue-as-new, compaction, the model chain, the budget gate, the end of
// a run, and what is published for operators.
import { ActivityFailure, ApplicationFailure, RetryState } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import type { ModelTurn } from '../../../src/protocol/model.js';
import { costGate, hasCostLimit, initialCostLimits, onCostDecision } from '../../../src/core/run/cost-gate.js';
import { queueMessage, readQueuedMessages } from '../../../src/core/run/inbox.js';
import { currentDetails, publishedValues } from '../../../src/core/run/published.js';
import {
  afterModelFailure,
  recordCompaction,
  CONTEXT_LENGTH_EXCEEDED,
  completeWithAnswer,
  describeFailure,
  markFailed,
  modelChain,
  modelRequest,
  needsCompaction,
  recordModelFallback,
  recordModelTurn,
  runEndingFailure,
  shouldContinueAsNew,
} from '../../../src/core/run/steps.js';
import type { AgentInput, AgentState } from '../../../src/core/state.js';
import { initialState } from '../../../src/core/state.js';

const input = (overrides: Partial<AgentInput> = {}): AgentInput => ({
  task: 't',
  workspace: '/w',
  selection: { model: 'gpt-4.1-mini' },
  maxSteps: 50,
  mode: 'default',
  askPolicy: 'wait',
  ...overrides,
});
const state = (): AgentState => initialState('task', 'system', 'task');
const usage = { promptTokens: 1_000, completionTokens: 100, totalTokens: 1_100 };
const turn = (overrides: Partial<ModelTurn> = {}): ModelTurn => ({
  content: null,
  toolCalls: [],
  finishReason: 'stop',
  usage,
  model: 'gpt-4.1-mini',
  ...overrides,
});

describe('continue-as-new', () => {
  const cases = [
    {
      name: 'never on the step the run started at, even when suggested',
      step: 7,
      first: 7,
      suggested: true,
      every: undefined,
      expected: false,
    },
    { name: 'when Temporal suggests it', step: 8, first: 7, suggested: true, every: undefined, expected: true },
    { name: 'every N steps', step: 10, first: 7, suggested: false, every: 5, expected: true },
    { name: 'not between', step: 9, first: 7, suggested: false, every: 5, expected: false },
    { name: 'N = 0 means never', step: 10, first: 7, suggested: false, every: 0, expected: false },
  ];
  it.each(cases)('$name', ({ step, first, suggested, every, expected }) => {
    const current = state();
    current.step = step;
    expect(
      shouldContinueAsNew(
        current,
        input(every === undefined ? {} : { continueAsNewEverySteps: every }),
        first,
        suggested,
      ),
    ).toBe(expected);
  });
});

describe('model calls', () => {
  it('the chain is the selection, then each fallback over it', () => {
    expect(
      modelChain(input({ selection: { model: 'a', baseUrl: 'http://x' }, fallbackSelections: [{ model: 'b' }] })),
    ).toEqual([
      { model: 'a', baseUrl: 'http://x' },
      { model: 'b', baseUrl: 'http://x' },
    ]);
  });

  it('a request carries the transcript by key; only the inline comparison carries messages', () => {
    const current = state();
    expect(modelRequest(current, input(), { model: 'a' }, ['ReadFile'], {})).not.toHaveProperty('messages');
    expect(modelRequest(current, input({ inlineTranscript: true }), { model: 'a' }, [], {})).toMatchObject({
      messages: [],
      echoTranscript: true,
    });
  });

  it('a turn records usage, cost and a progress line; a fallback is traced', () => {
    const current = state();
    recordModelTurn(
      current,
      input(),
      turn({ toolCalls: [{ id: 'a', name: 'ReadFile', arguments: '{}', complete: true }] }),
      300,
    );
    expect(current.usage).toMatchObject({ modelCalls: 1, totalTokens: 1_100 });
    expect(current.usage.costUsd).toBeGreaterThan(0);
    expect(current.progress.at(-1)).toMatchObject({ kind: 'step', text: 'gpt-4.1-mini: 1 tool call', ms: 300 });
    recordModelFallback(current, { model: 'a' }, { model: 'b' }, 'unknown model', 1);
    expect(current.events.at(-1)).toMatchObject({
      type: 'model_fallback',
      data: { from: 'a', to: 'b', reason: 'unknown model' },
    });
  });

  it('a request too long for the model compacts once a step; then the chain goes on, then the run fails', () => {
    const tooLong = new ActivityFailure(
      'x',
      'callModel',
      '1',
      RetryState.NON_RETRYABLE_FAILURE,
      'w',
      ApplicationFailure.create({ type: CONTEXT_LENGTH_EXCEEDED, message: 'too long' }),
    );
    const other = new ActivityFailure(
      'x',
      'callModel',
      '1',
      RetryState.NON_RETRYABLE_FAILURE,
      'w',
      ApplicationFailure.create({ type: 'ModelInvocationError.NotFound', message: 'no model' }),
    );
    expect(afterModelFailure(tooLong, { compactedThisStep: false, hasNextModel: false })).toBe('compact');
    expect(afterModelFailure(tooLong, { compactedThisStep: true, hasNextModel: true })).toBe('next_model');
    expect(afterModelFailure(tooLong, { compactedThisStep: true, hasNextModel: false })).toBe('fail');
    expect(afterModelFailure(other, { compactedThisStep: false, hasNextModel: true })).toBe('next_model');
    expect(afterModelFailure(other, { compactedThisStep: false, hasNextModel: false })).toBe('fail');
  });

  it('only an activity that failed for good ends the run; anything else is a bug that fails the workflow task', () => {
    const cause = ApplicationFailure.create({ message: '401 bad key' });
    const model = new ActivityFailure('x', 'callModel', '1', RetryState.NON_RETRYABLE_FAILURE, 'w', cause);
    const tool = new ActivityFailure('x', 'applyOutputBudget', '1', RetryState.MAXIMUM_ATTEMPTS_REACHED, 'w', cause);
    expect(runEndingFailure(model)).toBe('Model call failed: 401 bad key');
    expect(runEndingFailure(tool)).toBe('Activity applyOutputBudget failed: 401 bad key');
    expect(runEndingFailure(new TypeError("Cannot read properties of undefined (reading 'map')"))).toBeUndefined();
  });

  it("a failure reads as its activity's cause", () => {
    const cause = ApplicationFailure.create({ message: '429 rate limited' });
    expect(
      describeFailure(
        new ActivityFailure('Activity task failed', 'callModel', '1', RetryState.MAXIMUM_ATTEMPTS_REACHED, 'w', cause),
      ),
    ).toBe('429 rate limited');
    expect(describeFailure('plain')).toBe('plain');
  });
});

describe('compaction', () => {
  it("is due at the run's threshold", () => {
    const current = state();
    current.transcript = { ...current.transcript, tokens: 500 };
    expect(needsCompaction(current, input({ compactAtTokens: 500 }))).toBe(true);
    expect(needsCompaction(current, input({ compactAtTokens: 501 }))).toBe(false);
  });

  it('skipped: nothing changes; unusable: only the cost; done: the shorter transcript', () => {
    const current = state();
    const before = current.transcript;
    recordCompaction(current, input(), turn({ skipped: true }), 5, 1);
    expect(current.usage.modelCalls).toBe(0);
    recordCompaction(current, input(), turn(), 5, 1);
    expect(current.transcript).toBe(before);
    expect(current.usage.modelCalls).toBe(1);
    const shorter = { head: `sha256:${'d'.repeat(64)}` as const, messages: 3, tokens: 40, tailTokens: 0 };
    recordCompaction(
      current,
      input(),
      turn({ compacted: { transcript: shorter, summarisedMessages: 9, tokensBefore: 900, tokensAfter: 40 } }),
      5,
      1,
    );
    expect(current.transcript).toEqual(shorter);
    expect(current.events.at(-1)).toMatchObject({ type: 'transcript_compacted', data: { summarised_messages: 9 } });
  });
});

describe('the budget gate', () => {
  const spent = (): AgentState => {
    const current = state();
    current.budget = { budgetUsd: 0.001 };
    current.usage = {
      ...current.usage,
      costUsd: 0.001,
      modelCalls: 1,
      lastPromptTokens: 10_000,
      completionTokens: 100,
    };
    return current;
  };

  it('a run without a budget has nothing to check', () => {
    expect(hasCostLimit(state())).toBe(false);
    expect(initialCostLimits(input({ budgetUsd: 2 }))).toEqual({ budgetUsd: 2 });
    expect(costGate(state(), input(), 0)).toEqual({ action: 'continue' });
  });

  const policies = [
    { name: '--on-budget stop stops', overrides: { onBudget: 'stop' as const }, action: 'stop' },
    { name: '--ask deny stops', overrides: { askPolicy: 'deny' as const }, action: 'stop' },
    {
      name: '--ask approve extends at once',
      overrides: { askPolicy: 'approve' as const, budgetUsd: 0.001 },
      action: 'continue',
    },
    { name: '--ask wait asks an operator', overrides: { askPolicy: 'wait' as const }, action: 'ask' },
  ];
  it.each(policies)('over budget: $name', ({ overrides, action }) => {
    const current = spent();
    const gate = costGate(current, input(overrides), 1);
    expect(gate.action).toBe(action);
    if (gate.action === 'stop') expect(gate.message).toMatch(/^Stopped before step 1: /);
    if (gate.action === 'ask') {
      expect(gate.request).toMatchObject({ callId: 'budget-step-1', tool: 'callModel', level: 'budget' });
      expect(current.status).toBe('waiting_approval');
    }
    if (action === 'continue') expect(current.budget.budgetUsd).toBeCloseTo(0.002);
  });

  it("an operator's approval extends the budget by its original amount; a rejection stops", () => {
    const approved = spent();
    const gate = costGate(approved, input({ budgetUsd: 0.001 }), 1);
    if (gate.action !== 'ask') throw new Error('expected a question');
    expect(onCostDecision(approved, input({ budgetUsd: 0.001 }), true, gate)).toEqual({ action: 'continue' });
    expect(approved.budget.budgetUsd).toBeCloseTo(0.002);
    expect(approved.status).toBe('running');
    expect(approved.progress.at(-1)?.text).toMatch(/^budget extended to \$0\.0020$/);
    const rejected = spent();
    const asked = costGate(rejected, input(), 1);
    if (asked.action !== 'ask') throw new Error('expected a question');
    expect(onCostDecision(rejected, input(), false, asked)).toMatchObject({
      action: 'stop',
      message: expect.stringMatching(/\(not approved\)$/),
    });
  });
});

describe('the end of a run', () => {
  it('an answer completes the run and joins the transcript', () => {
    const current = state();
    completeWithAnswer(current, 'All done.');
    expect(current).toMatchObject({ status: 'completed', answer: 'All done.' });
    expect(current.progress.at(-1)).toMatchObject({ kind: 'answer', text: 'All done.' });
    expect(current.transcript.messages).toBe(3);
  });

  it('a failure is recorded with its message', () => {
    const current = state();
    markFailed(current, 'Reached the step limit (5) before the model finished.');
    expect(current).toMatchObject({ status: 'failed', error: 'Reached the step limit (5) before the model finished.' });
  });
});

describe('what operators see', () => {
  it('the current details and the search attribute values', () => {
    const current = state();
    current.step = 4;
    current.lastTool = 'Bash';
    const pending = [
      {
        callId: 'wipe',
        identity: '4/0/Bash/0123456789abcdef',
        tool: 'Bash',
        level: 'destructive',
        reason: 'deletes recursively',
        requestedAt: 1,
      },
    ];
    expect(currentDetails(current, input({ maxSteps: 9 }), pending)).toContain(
      '**pending approvals** wipe — approval: Bash — destructive (deletes recursively)',
    );
    expect(currentDetails(current, input({ maxSteps: 9 }), [])).toContain('**step** 4 of 9');
    expect(currentDetails(current, input(), [])).not.toContain('messages waiting');
    queueMessage(current, { id: 'm-1', text: 'also update the docs' }, 0);
    expect(currentDetails(current, input(), [])).toContain('**messages waiting** 1 (read before the next step)');
    readQueuedMessages(current, 0);
    expect(currentDetails(current, input(), [])).not.toContain('messages waiting');
    expect(currentDetails(current, input(), [])).toContain('**cost** $0.0000 · **tokens** 0');
    // A model without a price costs $0 in the ledger; the details do not pass that off as exact.
    recordModelTurn(current, input(), turn({ model: 'qwen2.5-coder' }), 10);
    expect(currentDetails(current, input(), [])).toContain('**cost** $0.0000 (no price for qwen2.5-coder)');
    // A run with a decision pending (its own, or a sub-agent's it is reported) is filtered as waiting for one.
    expect(publishedValues(current, input(), pending)).toEqual({
      status: 'waiting_approval',
      step: 4,
      pendingApprovals: 1,
      costUsd: 0,
      // The model that answered, not the one the input named.
      model: 'qwen2.5-coder',
    });
    expect(publishedValues(current, input(), []).status).toBe('running');
  });
});
