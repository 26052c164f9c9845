// The per-step tool choice and a structured run's rules (core/run/tool-choice): what each step may call, and what a
// turn with or without a valid FinalResult leads to.
import { describe, expect, it } from 'vitest';
import { FINAL_RESULT_TOOL } from '../../../src/core/final-result.js';
import type { ModelTurn } from '../../../src/protocol/model.js';
import { modelRequest } from '../../../src/core/run/steps.js';
import {
  completeWithResult,
  invalidResultPlan,
  stepToolChoice,
  turnOutcome,
} from '../../../src/core/run/tool-choice.js';
import type { AgentInput, AgentState } from '../../../src/core/state.js';
import { initialState, toResult } from '../../../src/core/state.js';

const schema = { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] };
const input = (overrides: Partial<AgentInput> = {}): AgentInput => ({
  task: 't',
  workspace: '/w',
  selection: { model: 'gpt-4.1-mini' },
  maxSteps: 5,
  mode: 'default',
  askPolicy: 'wait',
  ...overrides,
});
const atStep = (step: number): AgentState => ({ ...initialState('task', 'system', 'task'), step });
const tools = ['Bash', 'Glob', 'ReadFile'];
const turn = (overrides: Partial<ModelTurn> = {}): ModelTurn => ({
  content: null,
  toolCalls: [],
  finishReason: 'stop',
  usage: { promptTokens: 1, completionTokens: 1, totalTokens: 2 },
  model: 'm',
  ...overrides,
});
const finalCall = { id: 'f', name: FINAL_RESULT_TOOL, arguments: '{"n":1}', complete: true };

describe('stepToolChoice', () => {
  it("is the run's choice before the last step, auto by default", () => {
    expect(stepToolChoice(atStep(1), input(), tools)).toBe('auto');
    expect(stepToolChoice(atStep(4), input({ toolChoice: 'required' }), tools)).toBe('required');
    expect(stepToolChoice(atStep(2), input({ toolChoice: { name: 'Glob' } }), tools)).toEqual({ name: 'Glob' });
  });

  it('is none on the last allowed step, whatever the run chose', () => {
    expect(stepToolChoice(atStep(5), input(), tools)).toBe('none');
    expect(stepToolChoice(atStep(5), input({ toolChoice: 'required' }), tools)).toBe('none');
    expect(stepToolChoice(atStep(1), input({ maxSteps: 1, toolChoice: { name: 'Glob' } }), tools)).toBe('none');
  });

  it('turns a named tool that is not offered this step into required', () => {
    expect(stepToolChoice(atStep(1), input({ toolChoice: { name: 'Bash' } }), ['Glob'])).toBe('required');
  });

  it('forces the final tool of a structured run on its last step, after a miss, and when the run allows no other', () => {
    const structured = input({ outputSchema: schema });
    expect(stepToolChoice(atStep(1), structured, tools)).toBe('auto');
    expect(stepToolChoice(atStep(5), structured, tools)).toEqual({ name: FINAL_RESULT_TOOL });
    expect(stepToolChoice({ ...atStep(2), mustCallFinalResult: true }, structured, tools)).toEqual({
      name: FINAL_RESULT_TOOL,
    });
    expect(stepToolChoice(atStep(1), { ...structured, toolChoice: 'none' }, tools)).toEqual({
      name: FINAL_RESULT_TOOL,
    });
  });

  it('is what modelRequest sends, with the schema of a structured run; auto is left out', () => {
    expect(modelRequest(atStep(1), input(), {}, tools, {})).not.toHaveProperty('toolChoice');
    expect(modelRequest(atStep(5), input(), {}, tools, {})).toMatchObject({ toolChoice: 'none' });
    const structured = modelRequest(
      atStep(1),
      input({ outputSchema: schema, toolChoice: { name: FINAL_RESULT_TOOL } }),
      {},
      tools,
      {},
    );
    expect(structured).toMatchObject({ toolChoice: { name: FINAL_RESULT_TOOL }, outputSchema: schema });
  });
});

describe('turnOutcome', () => {
  it('without a schema: an answer when the model called nothing, tools otherwise', () => {
    expect(turnOutcome(atStep(1), input(), turn({ content: 'done' }))).toEqual({ kind: 'answer' });
    expect(turnOutcome(atStep(1), input(), turn({ toolCalls: [finalCall] }))).toEqual({ kind: 'tools' });
  });

  it('completes a structured run with a valid result', () => {
    const state = atStep(2);
    const valid = turn({ toolCalls: [finalCall], finalResult: { valid: true, value: { n: 1 } } });
    expect(turnOutcome(state, input({ outputSchema: schema }), valid)).toEqual({ kind: 'result', value: { n: 1 } });
    completeWithResult(state, valid, { n: 1 });
    expect(toResult(state)).toMatchObject({ status: 'completed', result: { n: 1 }, answer: null });
  });

  it('sends an invalid result back once, forcing the final tool, then fails naming the violations', () => {
    const state = atStep(1);
    const structured = input({ outputSchema: schema });
    const invalid = turn({ toolCalls: [finalCall], finalResult: { valid: false, errors: ['/n must be number'] } });
    expect(turnOutcome(state, structured, invalid)).toEqual({ kind: 'tools' });
    expect(state).toMatchObject({ resultRepairs: 1, mustCallFinalResult: true });
    state.step = 2;
    expect(turnOutcome(state, structured, invalid)).toEqual({
      kind: 'fail',
      message: `The ${FINAL_RESULT_TOOL} result does not match the output schema: /n must be number`,
    });
  });

  it('cannot repair an invalid result on the last step', () => {
    const invalid = turn({ toolCalls: [finalCall], finalResult: { valid: false, errors: ['/n is required'] } });
    expect(turnOutcome(atStep(5), input({ outputSchema: schema }), invalid)).toMatchObject({ kind: 'fail' });
  });

  it('follows a text answer with a forced step, and fails when the forced step answers in text again', () => {
    const state = atStep(1);
    const structured = input({ outputSchema: schema });
    expect(turnOutcome(state, structured, turn({ content: 'n is 1' }))).toEqual({ kind: 'text' });
    expect(stepToolChoice({ ...state, step: 2 }, structured, tools)).toEqual({ name: FINAL_RESULT_TOOL });
    expect(turnOutcome(state, structured, turn({ content: 'n is 1' }))).toMatchObject({ kind: 'fail' });
  });

  it('answers an invalid final call with INVALID_PARAM listing the violations', () => {
    const plan = invalidResultPlan(
      { state: 'failed', index: 0, callId: 'f', toolName: 'unknown', concurrencySafe: false, envelope: {} as never },
      ['/n must be number'],
    );
    expect(plan).toMatchObject({
      state: 'failed',
      toolName: FINAL_RESULT_TOOL,
      envelope: { status: 'error', error: { code: 'INVALID_PARAM', details: { violations: ['/n must be number'] } } },
    });
  });
});
