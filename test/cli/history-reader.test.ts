// The history reader against saved histories of real runs (test/fixtures/histories), and against edited copies of
// them for what passing runs never show: retries, terminated runs, runs cut off mid-step, continue-as-new. Events are
// found by type and attributes, never by position, so the tests hold when the workflow schedules other activities.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils.js';
import { describe, expect, it } from 'vitest';
import { formatHistory } from '../../src/cli/commands/history.js';
import { describeEvent, eventTypeName } from '../../src/history/events.js';
import { historyIdentity, mergeRunHistories, readRunHistory, previousRun } from '../../src/history/history-reader.js';
import { coreMessage } from '../../src/history/replay-check.js';

type JsonEvent = Record<string, any> & { eventId: string; eventType: string; eventTime: string };
type JsonHistory = { events: JsonEvent[] };

function fixture(name: string): JsonHistory {
  const path = fileURLToPath(new URL(`../fixtures/histories/${name}.json`, import.meta.url));
  return JSON.parse(readFileSync(path, 'utf8')) as JsonHistory;
}

function read(json: JsonHistory) {
  return readRunHistory(historyFromJSON(json));
}

function base64Json(value: unknown): { metadata: { encoding: string }; data: string } {
  return {
    metadata: { encoding: Buffer.from('json/plain').toString('base64') },
    data: Buffer.from(JSON.stringify(value)).toString('base64'),
  };
}

function payloadValue(payloads: { data: string }[] | undefined): any {
  return payloads?.[0] ? JSON.parse(Buffer.from(payloads[0].data, 'base64').toString('utf8')) : undefined;
}

/** The ActivityTaskScheduled events of one activity type, in history order. */
function scheduled(json: JsonHistory, activityType: string): JsonEvent[] {
  return json.events.filter((event) => event.activityTaskScheduledEventAttributes?.activityType?.name === activityType);
}

function scheduledInput(event: JsonEvent): any {
  return payloadValue(event.activityTaskScheduledEventAttributes.input?.payloads);
}

/** The scheduled event of the model call of `step`. */
function modelCall(json: JsonHistory, step: number): JsonEvent {
  const found = scheduled(json, 'callModel').find((event) => scheduledInput(event)?.step === step);
  if (!found) throw new Error(`no callModel for step ${step}`);
  return found;
}

/** The scheduled events of the tool activities of `turn`, in history order. */
function toolCalls(json: JsonHistory, turn: number): JsonEvent[] {
  return json.events.filter((event) => {
    const input = event.activityTaskScheduledEventAttributes ? scheduledInput(event) : undefined;
    return typeof input?.callId === 'string' && input.turn === turn;
  });
}

const closingKeys = [
  'activityTaskCompletedEventAttributes',
  'activityTaskFailedEventAttributes',
  'activityTaskTimedOutEventAttributes',
  'activityTaskCanceledEventAttributes',
];

/** The event that closed the activity scheduled by `scheduledEvent`. */
function closing(json: JsonHistory, scheduledEvent: JsonEvent): JsonEvent {
  const found = json.events.find((event) =>
    closingKeys.some((key) => event[key]?.scheduledEventId === scheduledEvent.eventId),
  );
  if (!found) throw new Error(`activity ${scheduledEvent.eventId} never closed`);
  return found;
}

function started(json: JsonHistory, scheduledEvent: JsonEvent): JsonEvent {
  const found = json.events.find(
    (event) => event.activityTaskStartedEventAttributes?.scheduledEventId === scheduledEvent.eventId,
  );
  if (!found) throw new Error(`activity ${scheduledEvent.eventId} never started`);
  return found;
}

/** The history up to and including `last`, as a run fetched at that moment would show it. */
function cutAfter(json: JsonHistory, last: JsonEvent): JsonHistory {
  const index = json.events.indexOf(last);
  if (index < 0) throw new Error('event not in history');
  return { ...json, events: json.events.slice(0, index + 1) };
}

const closingRunTypes = ['COMPLETED', 'FAILED', 'TIMED_OUT', 'CANCELED', 'TERMINATED', 'CONTINUED_AS_NEW'];

function closingEvent(json: JsonHistory): JsonEvent {
  const found = json.events.find((event) =>
    closingRunTypes.some((type) => event.eventType === `EVENT_TYPE_WORKFLOW_EXECUTION_${type}`),
  );
  if (!found) throw new Error('history has no closing event');
  return found;
}

function startAttributes(json: JsonHistory): Record<string, any> {
  return json.events[0]!.workflowExecutionStartedEventAttributes;
}

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
    // The worker's function tools are a local activity: a marker, no scheduled activity.
    expect(scheduled(json, 'listFunctionTools')).toHaveLength(0);
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

  it('durations come from event times: the heartbeat-timed-out Bash call took about ten seconds', () => {
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
    expect(bash.durationMs).toBeGreaterThanOrEqual(10_000);
    expect(bash.durationMs).toBeLessThan(11_000);
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

describe('readRunHistory on edited histories', () => {
  it('reports attempts and the failures the server kept for a retried model call', () => {
    const json = fixture('envelopes');
    const attributes = started(json, modelCall(json, 1)).activityTaskStartedEventAttributes;
    attributes.attempt = 3;
    attributes.lastFailure = {
      message: '503 overloaded',
      applicationFailureInfo: { type: 'ModelInvocationError.Unavailable' },
    };
    const run = read(json);
    expect(run.steps[0]!.model).toMatchObject({
      attempts: 3,
      failures: ['ModelInvocationError.Unavailable: 503 overloaded'],
    });
    expect(run.steps[1]!.model).toMatchObject({ attempts: 1, failures: [] });
  });

  it('a model call that failed for good lists the last failure after the one before it', () => {
    const json = fixture('envelopes');
    const call = modelCall(json, 2);
    started(json, call).activityTaskStartedEventAttributes.lastFailure = {
      message: 'first',
      applicationFailureInfo: { type: 'A' },
    };
    const closed = closing(json, call);
    const { scheduledEventId, startedEventId } = closed.activityTaskCompletedEventAttributes;
    delete closed.activityTaskCompletedEventAttributes;
    closed.eventType = 'EVENT_TYPE_ACTIVITY_TASK_FAILED';
    closed.activityTaskFailedEventAttributes = {
      scheduledEventId,
      startedEventId,
      failure: { message: 'second', applicationFailureInfo: { type: 'B' } },
    };
    expect(read(json).steps[1]!.model).toMatchObject({
      failures: ['A: first', 'B: second'],
      durationMs: expect.any(Number),
    });
  });

  it('a run cut off mid-step is running: open activities have no duration yet, unanswered calls are not_run', () => {
    const json = fixture('fan-out');
    const calls = toolCalls(json, 1);
    expect(calls.map((event) => scheduledInput(event).callId)).toEqual(['r1', 'g1', 'r2', 's1']);
    // Cut off at the first of the parallel calls to finish; the server writes a started event with its close, so the
    // other two are still pending, not yet started.
    const firstDone = json.events.find((event) =>
      calls.some((call) => closingKeys.some((key) => event[key]?.scheduledEventId === call.eventId)),
    )!;
    const done = calls.find((call) => closing(json, call) === firstDone)!;
    const run = read(cutAfter(json, firstDone));
    expect(run.status).toBe('running');
    expect(run.steps).toHaveLength(1);
    expect(run.steps[0]!.tools.map((tool) => tool.callId)).toEqual(['r1', 'g1', 'r2', 's1']);
    for (const tool of run.steps[0]!.tools) {
      if (tool.callId === scheduledInput(done).callId) {
        expect(tool).toMatchObject({ status: 'success', attempts: 1, durationMs: expect.any(Number) });
      } else {
        expect(tool).toMatchObject({ status: 'running', durationMs: null, attempts: 0 });
      }
    }

    // Step 1 answered, its calls not run yet.
    const planned = fixture('envelopes');
    const answered = read(cutAfter(planned, closing(planned, modelCall(planned, 1))));
    expect(answered.status).toBe('running');
    expect(answered.steps[0]!.tools.map((tool) => [tool.callId, tool.status, tool.durationMs])).toEqual([
      ['a', 'not_run', null],
      ['b', 'not_run', null],
      ['c', 'not_run', null],
    ]);

    // Still listing function tools (a local activity's marker): no step yet.
    const marker = planned.events.find((event) => event.markerRecordedEventAttributes)!;
    expect(read(cutAfter(planned, marker))).toMatchObject({ status: 'running', steps: [] });
  });

  it('a Bash call whose classification is still in flight is not_run, and the classification is no call of its own', () => {
    const json = fixture('demo');
    const classifying = scheduled(json, 'classifyBash')[0]!;
    const run = read(cutAfter(json, classifying));
    expect(run.status).toBe('running');
    expect(run.steps.map((step) => step.step)).toEqual([1, 2, 3]);
    expect(run.steps[2]!.tools).toEqual([
      { callId: 'call_test_before', tool: 'Bash', summary: '', status: 'not_run', durationMs: null, attempts: 0 },
    ]);
  });

  it('a terminated run is terminated with its reason, and the activity it cut off is cancelled', () => {
    const json = fixture('durability');
    const bash = scheduled(json, 'Bash')[0]!;
    const edited = cutAfter(json, started(json, bash));
    const startedAt = Date.parse(edited.events.at(-1)!.eventTime);
    edited.events.push({
      eventId: String(Number(edited.events.at(-1)!.eventId) + 1),
      eventTime: new Date(startedAt + 2_000).toISOString(),
      eventType: 'EVENT_TYPE_WORKFLOW_EXECUTION_TERMINATED',
      workflowExecutionTerminatedEventAttributes: { reason: 'operator' },
    });
    const run = read(edited);
    expect(run.status).toBe('terminated');
    expect(run.terminationReason).toBe('operator');
    expect(run.steps).toHaveLength(1);
    expect(run.steps[0]!.tools).toHaveLength(1);
    const cut = run.steps[0]!.tools[0]!;
    expect(cut).toMatchObject({ callId: 'slow', tool: 'Bash', status: 'cancelled', attempts: 1 });
    expect(cut.durationMs).toBeGreaterThanOrEqual(2_000);
  });

  it('the run status follows the closing event, and a completed run reports the status of its result', () => {
    const withLast = (last: Omit<JsonEvent, 'eventId' | 'eventTime'>) => {
      const json = fixture('envelopes');
      const closed = closingEvent(json);
      json.events[json.events.indexOf(closed)] = {
        ...last,
        eventId: closed.eventId,
        eventTime: closed.eventTime,
      } as JsonEvent;
      return json;
    };
    expect(read(fixture('envelopes')).status).toBe('completed');
    expect(
      read(
        withLast({
          eventType: 'EVENT_TYPE_WORKFLOW_EXECUTION_FAILED',
          workflowExecutionFailedEventAttributes: { failure: { message: 'x' } },
        }),
      ).status,
    ).toBe('failed');
    expect(
      read(
        withLast({
          eventType: 'EVENT_TYPE_WORKFLOW_EXECUTION_TIMED_OUT',
          workflowExecutionTimedOutEventAttributes: {},
        }),
      ).status,
    ).toBe('timed_out');
    expect(
      read(
        withLast({ eventType: 'EVENT_TYPE_WORKFLOW_EXECUTION_CANCELED', workflowExecutionCanceledEventAttributes: {} }),
      ).status,
    ).toBe('cancelled');
    expect(
      read(
        withLast({
          eventType: 'EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED',
          workflowExecutionCompletedEventAttributes: { result: { payloads: [base64Json({ status: 'failed' })] } },
        }),
      ).status,
    ).toBe('failed');

    const continued = withLast({
      eventType: 'EVENT_TYPE_WORKFLOW_EXECUTION_CONTINUED_AS_NEW',
      workflowExecutionContinuedAsNewEventAttributes: { newExecutionRunId: 'run-next' },
    });
    expect(read(continued).status).toBe('continued');
    const firstRunId = startAttributes(continued).firstExecutionRunId as string;
    // This run is its task's first, so the chain starts at its own id.
    expect(firstRunId).toBe(historyIdentity(historyFromJSON(continued)).runId);
    // A task's first run continued from none; the next run names this one.
    expect(previousRun(historyFromJSON(continued))).toBeUndefined();
    const next = fixture('envelopes');
    startAttributes(next).continuedExecutionRunId = firstRunId;
    expect(previousRun(historyFromJSON(next))).toBe(firstRunId);
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

describe('event labels', () => {
  it('names events by type and what they concern', () => {
    const json = fixture('demo');
    const events = historyFromJSON(json).events!;
    const same = (event: JsonEvent) => events.find((each) => String(each.eventId) === event.eventId)!;
    expect(eventTypeName(events[0]!)).toBe('WorkflowExecutionStarted');
    expect(describeEvent(same(modelCall(json, 1)))).toBe(
      'ActivityTaskScheduled callModel: callModel step 1 scripted-model (2 messages, 6 tools)',
    );
    expect(describeEvent(same(modelCall(json, 6)))).toMatch(/^ActivityTaskScheduled callModel: callModel step 6 /);
    const pinned = fixture('fan-out');
    const pinnedEvents = historyFromJSON(pinned).events!;
    const glob = scheduled(pinned, 'Glob')[0]!;
    expect(describeEvent(pinnedEvents.find((each) => String(each.eventId) === glob.eventId)!)).toBe(
      'ActivityTaskScheduled Glob: Glob *.txt',
    );
    const localRead = fixture('fan-out-local');
    const localEvents = historyFromJSON(localRead).events!;
    const markers = localEvents.filter((event) => event.markerRecordedEventAttributes).map(describeEvent);
    expect(markers).toContain('MarkerRecorded local activity Glob');
    const marker = json.events.find((event) => event.markerRecordedEventAttributes)!;
    expect(describeEvent(same(marker))).toBe('MarkerRecorded local activity listFunctionTools');
    expect(describeEvent(same(scheduled(json, 'classifyBash')[0]!))).toBe(
      'ActivityTaskScheduled classifyBash: classifyBash npm test',
    );
    const upsert = json.events.find((event) => event.upsertWorkflowSearchAttributesEventAttributes)!;
    expect(describeEvent(same(upsert))).toBe('UpsertWorkflowSearchAttributes');
    expect(describeEvent(same(closingEvent(json)))).toBe('WorkflowExecutionCompleted');
    expect(describeEvent(events.at(-1)!)).toBe('WorkflowExecutionCompleted');
  });

  it('extracts the core sentence from a determinism error', () => {
    const error = new Error(
      'Replay failed with a nondeterminism error. This means that the workflow code as written is not compatible with the history that was fed in. ' +
        `Details: Workflow activation completion failed: Failure { failure: Some(Failure { message: "[TMPRL1100] Nondeterminism error: Activity type of scheduled event 'callModel' does not match activity type of activity command 'other'", source: "" }) }`,
    );
    expect(coreMessage(error)).toBe(
      "Activity type of scheduled event 'callModel' does not match activity type of activity command 'other'",
    );
    expect(coreMessage(new Error('Replay failed due workflow task failure. Details: boom'))).toBe('boom');
  });
});
