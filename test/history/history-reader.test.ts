// The history reader against saved histories of real runs (test/fixtures/histories): steps, calls, statuses and
// timings as the runs recorded them, and one task read across continue-as-new.
import { historyFromJSON } from '@temporalio/common/lib/proto-utils.js';
import { describe, expect, it } from 'vitest';
import { formatHistory } from '../../src/cli/commands/history.js';
import { historyIdentity, mergeRunHistories, readRunHistory } from '../../src/history/history-reader.js';
import {
  type JsonHistory,
  fixture,
  localActivities,
  read,
  payloadValue,
  scheduled,
  scheduledInput,
  modelCall,
  toolCalls,
  closing,
  startAttributes,
} from '../support/history-json.js';

describe('readRunHistory on saved histories', () => {
  it('reads the demo run: six steps, parallel reads in request order, summaries, statuses, tokens', () => {
    const json = fixture('demo');
    const run = read(json);
    expect(run).toMatchObject({
      workflowId: startAttributes(json).workflowId,
      runId: startAttributes(json).originalExecutionRunId,
      status: 'completed',
    });
    expect(run.runIds).toEqual([run.runId]);
    // One step per model turn: the function-tool listing and the Bash classifications are not steps.
    expect(run.steps.map((step) => step.step)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(scheduled(json, 'callModel')).toHaveLength(6);
    // The task's tool listings are answered by local activities in the first workflow task (markers), no step's.
    expect(scheduled(json, 'listFunctionTools')).toHaveLength(0);
    expect(scheduled(json, 'listMcpTools')).toHaveLength(0);
    expect(localActivities(json).slice(0, 2)).toEqual(['listFunctionTools', 'listMcpTools']);
    expect(scheduled(json, 'classifyBash')).toHaveLength(2);

    const usage = payloadValue(
      closing(json, modelCall(json, 1)).activityTaskCompletedEventAttributes.result.payloads,
    ).usage;
    expect(usage.promptTokens).toBeGreaterThan(0);
    expect(run.steps[0]!.model).toEqual({
      model: 'scripted-model',
      promptTokens: usage.promptTokens,
      completionTokens: usage.completionTokens,
      durationMs: expect.any(Number),
      attempts: 1,
      failures: [],
    });
    expect(run.steps[1]!.model.promptTokens).toBeGreaterThan(run.steps[0]!.model.promptTokens);
    expect(
      run.steps[0]!.tools.map((tool) => [tool.callId, tool.tool, tool.summary, tool.status, tool.attempts]),
    ).toEqual([
      ['call_glob', 'Glob', 'Glob **/*.js', 'success', 1],
      ['call_grep', 'Grep', 'Grep "subtotal|totalPrice"', 'success', 1],
      ['call_pkg', 'ReadFile', 'ReadFile package.json:1-2000', 'success', 1],
    ]);
    expect(run.steps[1]!.tools.map((tool) => [tool.callId, tool.summary])).toEqual([
      ['call_cart', 'ReadFile src/cart.js:1-2000'],
      ['call_test', 'ReadFile test/cart.test.js:1-2000'],
    ]);
    // The failing test run is a partial result (non-zero exit), the run after the fix a success.
    expect(run.steps[2]!.tools).toEqual([
      expect.objectContaining({
        callId: 'call_test_before',
        tool: 'Bash',
        summary: 'Bash npm test',
        status: 'partial',
      }),
    ]);
    expect(run.steps[3]!.tools).toEqual([
      expect.objectContaining({ callId: 'call_fix', tool: 'EditFile', status: 'success' }),
    ]);
    expect(run.steps[4]!.tools).toEqual([
      expect.objectContaining({ callId: 'call_test_after', tool: 'Bash', status: 'success' }),
    ]);
    expect(run.steps[5]!.tools).toEqual([]);
    for (const step of run.steps) {
      for (const tool of step.tools) {
        // Reads of this host's workspace ran as local activities and may take under a millisecond.
        expect(tool.durationMs).toBeGreaterThanOrEqual(0);
        expect(tool).not.toHaveProperty('errorCode');
      }
    }
  });

  it('a Bash call carries the classification that let it run; the classifyBash activity is not a call of its own', () => {
    const json = fixture('demo');
    const run = read(json);
    const tools = run.steps.flatMap((step) => step.tools);
    expect(tools.map((tool) => tool.tool)).not.toContain('classifyBash');
    expect(tools.map((tool) => tool.tool)).not.toContain('listFunctionTools');
    const classified = payloadValue(
      closing(json, scheduled(json, 'classifyBash')[0]!).activityTaskCompletedEventAttributes.result.payloads,
    );
    expect(run.steps[2]!.tools[0]!.classification).toEqual({ level: classified.level, rule: classified.rule });
    for (const tool of tools.filter((each) => each.tool !== 'Bash')) expect(tool).not.toHaveProperty('classification');

    const text = formatHistory(run);
    expect(text).toMatch(new RegExp(`Bash +npm test +partial .*${classified.level}: ${classified.rule}`));
    expect(text).not.toContain('classifyBash');
    expect(text.match(/^step \d+/gm)).toHaveLength(6);
  });

  it('parallel calls are listed in the order the model asked for them, whatever order the history records', () => {
    const json = fixture('fan-out');
    const order = ['r1', 'g1', 'r2', 's1'];
    const tools = (history: JsonHistory) =>
      read(history).steps[0]!.tools.map((tool) => [tool.callId, tool.tool, tool.status]);
    const expected = [
      ['r1', 'ReadFile', 'success'],
      ['g1', 'Glob', 'success'],
      ['r2', 'ReadFile', 'success'],
      ['s1', 'Grep', 'success'],
    ];
    expect(tools(json)).toEqual(expected);
    expect(read(json).steps.map((step) => step.step)).toEqual([1, 2]);

    // Reverse the scheduled events in place: the listing still follows the model's request.
    const reversed = fixture('fan-out');
    const positions = toolCalls(reversed, 1).map((event) => reversed.events.indexOf(event));
    expect(positions).toHaveLength(order.length);
    const events = positions.map((position) => reversed.events[position]!);
    positions.forEach((position, index) => (reversed.events[position] = events[events.length - 1 - index]!));
    expect(toolCalls(reversed, 1).map((event) => scheduledInput(event).callId)).toEqual([...order].reverse());
    expect(tools(reversed)).toEqual(expected);
  });

  it('reads that ran as local activities are listed in request order with their summaries and outcomes', () => {
    const run = read(fixture('fan-out-local'));
    expect(
      run.steps[0]!.tools.map((tool) => [tool.callId, tool.tool, tool.summary, tool.status, tool.attempts]),
    ).toEqual([
      ['r1', 'ReadFile', 'ReadFile a.txt:1-2000', 'success', 1],
      ['g1', 'Glob', 'Glob *.txt', 'success', 1],
      ['r2', 'ReadFile', 'ReadFile b.txt:1-2000', 'success', 1],
      ['s1', 'Grep', 'Grep "beta"', 'success', 1],
    ]);
  });

  it('durations come from event times: the heartbeat-timed-out Bash call lasted past its 3 s heartbeat timeout', () => {
    const run = read(fixture('durability'));
    expect(run.steps.map((step) => step.step)).toEqual([1, 2, 3]);
    const bash = run.steps[0]!.tools[0]!;
    // The activity timed out; what the model was sent (the workflow's envelope) decides the status and code.
    expect(bash).toMatchObject({
      callId: 'slow',
      tool: 'Bash',
      status: 'error',
      errorCode: 'EXECUTION_ERROR',
      attempts: 1,
    });
    // From its start to the worker's SIGKILL, then 3 s without a heartbeat; far short of its 8 s sleep's end.
    expect(bash.durationMs).toBeGreaterThanOrEqual(3_000);
    expect(bash.durationMs).toBeLessThan(6_000);
    expect(run.steps[1]!.tools).toEqual([
      expect.objectContaining({ callId: 'check', tool: 'ReadFile', status: 'success' }),
    ]);
  });

  it('calls rejected while planning never became activities: attempts 0, the envelope code the model saw', () => {
    const run = read(fixture('envelopes'));
    expect(run.steps[0]!.tools).toEqual([
      {
        callId: 'a',
        tool: 'DeleteEverything',
        summary: '',
        status: 'error',
        errorCode: 'NOT_FOUND',
        durationMs: 0,
        attempts: 0,
      },
      {
        callId: 'b',
        tool: 'ReadFile',
        summary: '',
        status: 'error',
        errorCode: 'INVALID_PARAM',
        durationMs: 0,
        attempts: 0,
      },
      expect.objectContaining({
        callId: 'c',
        tool: 'ReadFile',
        summary: 'ReadFile missing.txt:1-2000',
        status: 'error',
        errorCode: 'NOT_FOUND',
        attempts: 1,
      }),
    ]);
  });

  it('the identity given wins over the one the history records', () => {
    const json = fixture('envelopes');
    const run = readRunHistory(historyFromJSON(json), { workflowId: 'other', runId: 'run-2' });
    expect(run).toMatchObject({ workflowId: 'other', runId: 'run-2', runIds: ['run-2'] });
    const recorded = historyIdentity(historyFromJSON(json));
    expect(recorded).toEqual({
      workflowId: startAttributes(json).workflowId,
      runId: startAttributes(json).originalExecutionRunId,
    });
    expect(recorded.workflowId).toMatch(/^agent-test-/);
    expect(recorded.runId).not.toBe('');
  });
});

describe('mergeRunHistories', () => {
  it('reads a task across continue-as-new: steps in order, every run id, the last run status', () => {
    const first = { ...read(fixture('envelopes')), status: 'continued' as const };
    const second = read(fixture('durability'));
    const renumbered = { ...second, steps: second.steps.map((step) => ({ ...step, step: step.step + 2 })) };
    const merged = mergeRunHistories([first, renumbered]);
    expect(merged.steps.map((step) => step.step)).toEqual([1, 2, 3, 4, 5]);
    expect(merged).toMatchObject({
      workflowId: second.workflowId,
      runId: second.runId,
      status: 'completed',
      runIds: [first.runId, second.runId],
    });
    expect(() => mergeRunHistories([])).toThrow();
  });
});
