// Planning a step's calls, the step's output budget and the transcript, in core/step/step-calls.ts.
import { describe, expect, it } from 'vitest';
import type { ApplyOutputBudgetResult } from '../../../src/protocol/output-budget.js';
import type { ContentKey } from '../../../src/protocol/content-key.js';
import { MAX_STEP_RESULT_BYTES } from '../../../src/core/output-budget.js';
import type { AgentInput } from '../../../src/core/state.js';
import { initialState } from '../../../src/core/state.js';
import type { ToolResult, StepEnv } from '../../../src/core/step/step-env.js';
import {
  answerDuplicates,
  withBudgetedResults,
  endStepCalls,
  planStepCalls,
  outputBudgetRequest,
} from '../../../src/core/step/step-calls.js';
import { visibleTools } from '../../../src/core/tool-selection/step-tools.js';
import { createTaskRegistry } from '../../../src/tools/task-registry.js';

function env(overrides: Partial<AgentInput> = {}): StepEnv {
  const state = initialState('task-1', 'system', 'do it');
  state.step = 2;
  const input: AgentInput = {
    task: 'do it',
    workspace: '/w',
    selection: {},
    maxSteps: 5,
    mode: 'default',
    askPolicy: 'wait',
    ...overrides,
  };
  return { state, input, registry: createTaskRegistry() };
}

const call = (id: string, name: string, args: Record<string, unknown>) => ({
  id,
  name,
  arguments: JSON.stringify(args),
  complete: true,
});
const turnOf = (...toolCalls: ReturnType<typeof call>[]) => ({
  content: null,
  toolCalls,
  finishReason: 'tool_calls' as const,
  usage: { promptTokens: 1, completionTokens: 1, totalTokens: 2 },
  model: 'm',
});

const result = (bytes: number, key: ContentKey = `sha256:${'b'.repeat(64)}`): ToolResult => ({
  message: { key, tokens: 1 },
  outcome: { status: 'success', text: 'ok', bytes, compressed: false },
});

describe('planStepCalls', () => {
  it('safe calls fan out up to the concurrency limit; an unsafe call runs alone; one call needs no pool', () => {
    const turnEnv = env({ maxToolConcurrency: 2 });
    const planned = planStepCalls(
      turnEnv,
      turnOf(
        call('a', 'ReadFile', { path: 'a' }),
        call('b', 'ReadFile', { path: 'b' }),
        call('c', 'Glob', { pattern: '*' }),
        call('d', 'Bash', { command: 'make' }),
        call('e', 'ReadFile', { path: 'e' }),
      ),
      1,
    );
    expect(planned.batches.map((batch) => [batch.calls.map((plan) => plan.callId), batch.concurrency])).toEqual([
      [['a', 'b', 'c'], 2],
      [['d'], 1],
      [['e'], 1],
    ]);
    expect(turnEnv.state.events[0]).toMatchObject({ type: 'tool_orchestration_plan' });
    // The assistant message is made before anything runs, with the final ids, and waits to be stored.
    expect(
      JSON.parse(turnEnv.state.pendingWrites[planned.assistant.key]!).tool_calls.map((part: { id: string }) => part.id),
    ).toEqual(['a', 'b', 'c', 'd', 'e']);
  });

  it('repairs are traced; duplicate ids are made unique', () => {
    const turnEnv = env();
    const planned = planStepCalls(
      turnEnv,
      turnOf(call('x', 'read_file', { path: 'a' }), call('x', 'ReadFile', { path: 'b' })),
      1,
    );
    expect(planned.plans.map((plan) => plan.callId)).toEqual(['x', 'x#2']);
    expect(turnEnv.state.events.some((event) => event.type === 'argument_repair')).toBe(true);
  });
});

describe('answerDuplicates', () => {
  it("answers an exact duplicate with the original's status and a note naming it; it is in no batch", () => {
    const turnEnv = env();
    const planned = planStepCalls(
      turnEnv,
      turnOf(call('x', 'Bash', { command: 'make' }), call('x', 'Bash', { command: 'make' })),
      1,
    );
    expect(planned.batches.flatMap((batch) => batch.calls.map((plan) => plan.callId))).toEqual(['x']);
    const results: ToolResult[] = [result(10)];
    answerDuplicates(turnEnv, planned, results, 1);
    expect(results[1]!.outcome).toMatchObject({ status: 'success' });
    const envelope = JSON.parse(JSON.parse(turnEnv.state.pendingWrites[results[1]!.message.key]!).content);
    expect(envelope).toMatchObject({ data: { duplicate_of: 'x' }, context: { tool_call_id: 'x#2' } });
    const failed: ToolResult[] = [
      {
        ...result(10),
        outcome: {
          status: 'error',
          text: 'boom',
          bytes: 10,
          compressed: false,
          error: { code: 'EXECUTION_ERROR', message: 'boom' },
        },
      },
    ];
    answerDuplicates(turnEnv, planned, failed, 1);
    expect(failed[1]!.outcome.error?.code).toBe('EXECUTION_ERROR');
  });
});

describe("the step's output budget (docs/tools.md §9 layer 2)", () => {
  it('asks for nothing while the results fit, and for the activity when they do not', () => {
    const turnEnv = env();
    const planned = planStepCalls(
      turnEnv,
      turnOf(call('a', 'ReadFile', { path: 'a' }), call('b', 'ReadFile', { path: 'b' })),
      1,
    );
    expect(outputBudgetRequest(turnEnv, planned.plans, [result(10), result(10)])).toBeUndefined();
    const request = outputBudgetRequest(turnEnv, planned.plans, [result(MAX_STEP_RESULT_BYTES), result(1)]);
    expect(request?.request.results.map((item) => [item.callId, item.toolName])).toEqual([
      ['a', 'ReadFile'],
      ['b', 'ReadFile'],
    ]);
    expect(request?.summary).toMatch(/^applyOutputBudget step 2 \(2 results, \d+ bytes\)$/);
  });

  it('replaces the budgeted results in place and traces each', () => {
    const turnEnv = env();
    const planned = planStepCalls(
      turnEnv,
      turnOf(call('a', 'ReadFile', { path: 'a' }), call('b', 'ReadFile', { path: 'b' })),
      1,
    );
    const smaller = result(100, `sha256:${'c'.repeat(64)}`);
    const budgeted: ApplyOutputBudgetResult = {
      items: [{ index: 0, ...smaller, event: { reason: 'aggregate_budget', raw_bytes: 300_000, visible_bytes: 100 } }],
    };
    const next = withBudgetedResults(turnEnv, planned.plans, [result(300_000), result(5)], budgeted, 1);
    expect(next.map((item) => item.outcome.bytes)).toEqual([100, 5]);
    expect(turnEnv.state.events.at(-1)).toMatchObject({
      type: 'tool_result_budget_item',
      data: { tool_call_id: 'a', reason: 'aggregate_budget' },
    });
  });
});

describe('endStepCalls', () => {
  it('appends the assistant message and one tool message per call, and counts the calls', () => {
    const turnEnv = env();
    const planned = planStepCalls(turnEnv, turnOf(call('a', 'ReadFile', { path: 'a' })), 1);
    const before = turnEnv.state.transcript.messages;
    endStepCalls(turnEnv, planned, [result(10)]);
    expect(turnEnv.state.transcript.messages).toBe(before + 2);
    expect(turnEnv.state.toolCalls).toBe(1);
  });
});

describe('visibleTools', () => {
  const visibleToolNames = (turnEnv: StepEnv, now: number) => visibleTools(turnEnv, now).map((tool) => tool.name);

  it('hides tools whose circuit is open and everything but reads in read-only mode', () => {
    const turnEnv = env();
    turnEnv.state.breakers.Grep = { state: 'OPEN', failures: 3, opened_at: 1_000, trial_in_flight: false };
    expect(visibleToolNames(turnEnv, 2_000)).not.toContain('Grep');
    expect(visibleToolNames(turnEnv, 2_000)).not.toContain('ToolSearch'); // nothing deferred to find
    expect(visibleToolNames(env({ mode: 'read_only' }), 0)).toEqual(['Glob', 'Grep', 'ReadFile']);
  });
});
