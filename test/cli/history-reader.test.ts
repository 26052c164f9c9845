// The history reader against saved histories of real runs (test/fixtures/histories), and against edited copies of
// them for what passing runs never show: retries, terminated runs, runs cut off mid-step, continue-as-new.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils.js';
import { describe, expect, it } from 'vitest';
import {
  describeEvent,
  eventTypeName,
  historyIdentity,
  mergeRunHistories,
  readRunHistory,
  runChain,
} from '../../src/cli/history-reader.js';
import { coreMessage } from '../../src/cli/replay-check.js';

type JsonEvent = Record<string, any> & { eventId: string; eventType: string };

function fixture(name: string): { events: JsonEvent[] } {
  const path = fileURLToPath(new URL(`../fixtures/histories/${name}.json`, import.meta.url));
  return JSON.parse(readFileSync(path, 'utf8')) as { events: JsonEvent[] };
}

function read(json: { events: JsonEvent[] }) {
  return readRunHistory(historyFromJSON(json));
}

function base64Json(value: unknown): { metadata: { encoding: string }; data: string } {
  return { metadata: { encoding: Buffer.from('json/plain').toString('base64') }, data: Buffer.from(JSON.stringify(value)).toString('base64') };
}

describe('readRunHistory on saved histories', () => {
  it('reads the demo run: six steps, parallel reads in request order, summaries, statuses, tokens', () => {
    const run = read(fixture('demo'));
    expect(run).toMatchObject({ workflowId: 'agent-demo-1796007585887', runId: '01a22a64-e86b-73fa-8d4f-297d3c14b3e6', status: 'completed' });
    expect(run.runIds).toEqual([run.runId]);
    expect(run.steps.map((step) => step.step)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(run.steps[0]!.model).toEqual({ model: 'scripted-model', promptTokens: 191, completionTokens: 54, durationMs: expect.any(Number), attempts: 1, failures: [] });
    expect(run.steps[0]!.tools.map((tool) => [tool.callId, tool.tool, tool.summary, tool.status, tool.attempts])).toEqual([
      ['call_glob', 'Glob', 'Glob **/*.js', 'success', 1],
      ['call_grep', 'Grep', 'Grep "subtotal|totalPrice"', 'success', 1],
      ['call_pkg', 'ReadFile', 'ReadFile package.json:1-2000', 'success', 1],
    ]);
    // The failing test run is a partial result (non-zero exit), the run after the fix a success.
    expect(run.steps[2]!.tools).toEqual([expect.objectContaining({ callId: 'call_test_before', tool: 'Bash', status: 'partial' })]);
    expect(run.steps[3]!.tools).toEqual([expect.objectContaining({ callId: 'call_fix', tool: 'EditFile', status: 'success' })]);
    expect(run.steps[4]!.tools).toEqual([expect.objectContaining({ callId: 'call_test_after', status: 'success' })]);
    expect(run.steps[5]!.tools).toEqual([]);
    for (const step of run.steps) {
      for (const tool of step.tools) {
        expect(tool.durationMs).toBeGreaterThan(0);
        expect(tool).not.toHaveProperty('errorCode');
      }
    }
  });

  it('durations come from event times: the heartbeat-timed-out Bash call took about ten seconds', () => {
    const run = read(fixture('durability'));
    const bash = run.steps[0]!.tools[0]!;
    // The activity timed out; what the model was sent (the workflow's envelope) decides the status and code.
    expect(bash).toMatchObject({ callId: 'slow', tool: 'Bash', status: 'error', errorCode: 'EXECUTION_ERROR', attempts: 1 });
    expect(bash.durationMs).toBeGreaterThanOrEqual(10_000);
    expect(bash.durationMs).toBeLessThan(11_000);
    expect(run.steps[1]!.tools).toEqual([expect.objectContaining({ callId: 'check', tool: 'ReadFile', status: 'success' })]);
  });

  it('calls rejected while planning never became activities: attempts 0, the envelope code the model saw', () => {
    const run = read(fixture('envelopes'));
    expect(run.steps[0]!.tools).toEqual([
      { callId: 'a', tool: 'DeleteEverything', summary: '', status: 'error', errorCode: 'NOT_FOUND', durationMs: 0, attempts: 0 },
      { callId: 'b', tool: 'ReadFile', summary: '', status: 'error', errorCode: 'INVALID_PARAM', durationMs: 0, attempts: 0 },
      expect.objectContaining({ callId: 'c', tool: 'ReadFile', summary: 'ReadFile missing.txt:1-2000', status: 'error', errorCode: 'NOT_FOUND', attempts: 1 }),
    ]);
  });

  it('the identity given wins over the one the history records', () => {
    const run = readRunHistory(historyFromJSON(fixture('envelopes')), { workflowId: 'other', runId: 'run-2' });
    expect(run).toMatchObject({ workflowId: 'other', runId: 'run-2', runIds: ['run-2'] });
    expect(historyIdentity(historyFromJSON(fixture('envelopes')))).toEqual({
      workflowId: 'agent-test-6fb34084',
      runId: '01a22a64-f35f-7438-8611-9972a007c12a',
    });
  });
});

describe('readRunHistory on edited histories', () => {
  it('reports attempts and the failures the server kept for a retried model call', () => {
    const json = fixture('envelopes');
    const started = json.events.find((event) => event.eventId === '6')!;
    started.activityTaskStartedEventAttributes.attempt = 3;
    started.activityTaskStartedEventAttributes.lastFailure = {
      message: '503 overloaded',
      applicationFailureInfo: { type: 'ModelInvocationError.Unavailable' },
    };
    const run = read(json);
    expect(run.steps[0]!.model).toMatchObject({ attempts: 3, failures: ['ModelInvocationError.Unavailable: 503 overloaded'] });
    expect(run.steps[1]!.model).toMatchObject({ attempts: 1, failures: [] });
  });

  it('a run cut off mid-step is running: open activities have no duration yet, unanswered calls are not_run', () => {
    const json = fixture('demo');
    json.events = json.events.filter((event) => Number(event.eventId) <= 15); // Glob done; Grep and ReadFile in flight
    const run = read(json);
    expect(run.status).toBe('running');
    expect(run.steps).toHaveLength(1);
    const [glob, grep, readFile] = run.steps[0]!.tools;
    expect(glob).toMatchObject({ tool: 'Glob', status: 'success', attempts: 1 });
    expect(grep).toMatchObject({ tool: 'Grep', status: 'running', durationMs: null, attempts: 0 });
    expect(readFile).toMatchObject({ tool: 'ReadFile', status: 'running', durationMs: null });

    const planned = fixture('envelopes');
    planned.events = planned.events.filter((event) => Number(event.eventId) <= 10); // step 1 answered, nothing run yet
    expect(read(planned).steps[0]!.tools.map((tool) => [tool.callId, tool.status, tool.durationMs])).toEqual([
      ['a', 'not_run', null],
      ['b', 'not_run', null],
      ['c', 'not_run', null],
    ]);
  });

  it('a terminated run is cancelled, and so is the activity it cut off', () => {
    const json = fixture('durability');
    json.events = json.events.filter((event) => Number(event.eventId) <= 12); // Bash started
    const startedAt = Date.parse(json.events.at(-1)!.eventTime);
    json.events.push({
      eventId: '13',
      eventTime: new Date(startedAt + 2_000).toISOString(),
      eventType: 'EVENT_TYPE_WORKFLOW_EXECUTION_TERMINATED',
      workflowExecutionTerminatedEventAttributes: { reason: 'operator' },
    });
    const run = read(json);
    expect(run.status).toBe('cancelled');
    const bash = run.steps[0]!.tools[0]!;
    expect(bash).toMatchObject({ callId: 'slow', status: 'cancelled', attempts: 1 });
    expect(bash.durationMs).toBeGreaterThanOrEqual(2_000);
  });

  it('the run status follows the closing event, and a completed run reports the status of its result', () => {
    const withLast = (last: JsonEvent) => {
      const json = fixture('envelopes');
      json.events[json.events.length - 1] = { ...last, eventId: '23' };
      return json;
    };
    const time = '2026-11-30T02:59:49.090283850Z';
    expect(read(withLast({ eventId: '', eventTime: time, eventType: 'EVENT_TYPE_WORKFLOW_EXECUTION_FAILED', workflowExecutionFailedEventAttributes: { failure: { message: 'x' } } })).status).toBe('failed');
    expect(read(withLast({ eventId: '', eventTime: time, eventType: 'EVENT_TYPE_WORKFLOW_EXECUTION_CANCELED', workflowExecutionCanceledEventAttributes: {} })).status).toBe('cancelled');
    expect(read(withLast({ eventId: '', eventTime: time, eventType: 'EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED', workflowExecutionCompletedEventAttributes: { result: { payloads: [base64Json({ status: 'failed' })] } } })).status).toBe('failed');

    const continued = withLast({
      eventId: '',
      eventTime: time,
      eventType: 'EVENT_TYPE_WORKFLOW_EXECUTION_CONTINUED_AS_NEW',
      workflowExecutionContinuedAsNewEventAttributes: { newExecutionRunId: 'run-next' },
    });
    expect(read(continued).status).toBe('continued_as_new');
    expect(runChain(historyFromJSON(continued))).toEqual({ firstRunId: '01a22a64-f35f-7438-8611-9972a007c12a', nextRunId: 'run-next' });
    expect(runChain(historyFromJSON(fixture('envelopes')))).toEqual({ firstRunId: '01a22a64-f35f-7438-8611-9972a007c12a' });
  });
});

describe('mergeRunHistories', () => {
  it('reads a task across continue-as-new: steps in order, every run id, the last run status', () => {
    const first = { ...read(fixture('envelopes')), status: 'continued_as_new' as const };
    const second = read(fixture('durability'));
    const renumbered = { ...second, steps: second.steps.map((step) => ({ ...step, step: step.step + 2 })) };
    const merged = mergeRunHistories([first, renumbered]);
    expect(merged.steps.map((step) => step.step)).toEqual([1, 2, 3, 4, 5]);
    expect(merged).toMatchObject({ workflowId: second.workflowId, runId: second.runId, status: 'completed', runIds: [first.runId, second.runId] });
    expect(() => mergeRunHistories([])).toThrow();
  });
});

describe('event labels', () => {
  it('names events by type and what they concern', () => {
    const events = historyFromJSON(fixture('demo')).events!;
    const byId = (id: number) => events.find((event) => Number(event.eventId) === id)!;
    expect(eventTypeName(byId(1))).toBe('WorkflowExecutionStarted');
    expect(describeEvent(byId(5))).toBe('ActivityTaskScheduled callModel, step 1');
    expect(describeEvent(byId(11))).toBe('ActivityTaskScheduled Glob: Glob **/*.js');
    expect(describeEvent(byId(83))).toBe('WorkflowExecutionCompleted');
  });

  it('extracts the core sentence from a determinism error', () => {
    const error = new Error(
      'Replay failed with a nondeterminism error. This means that the workflow code as written is not compatible with the history that was fed in. ' +
        `Details: Workflow activation completion failed: Failure { failure: Some(Failure { message: "[TMPRL1100] Nondeterminism error: Activity type of scheduled event 'callModel' does not match activity type of activity command 'other'", source: "" }) }`,
    );
    expect(coreMessage(error)).toBe("Activity type of scheduled event 'callModel' does not match activity type of activity command 'other'");
    expect(coreMessage(new Error('Replay failed due workflow task failure. Details: boom'))).toBe('boom');
  });
});
