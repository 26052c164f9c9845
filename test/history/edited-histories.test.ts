// The history reader against edited copies of saved histories, for what passing runs never show: retries, terminated
// runs, runs cut off mid-step; and the one-line labels of events.
import { historyFromJSON } from '@temporalio/common/lib/proto-utils.js';
import { describe, expect, it } from 'vitest';
import { describeEvent, eventTypeName } from '../../src/history/events.js';
import { historyIdentity, previousRun } from '../../src/history/history-reader.js';
import { coreMessage } from '../../src/history/replay-check.js';
import {
  type JsonEvent,
  fixture,
  read,
  base64Json,
  scheduled,
  scheduledInput,
  modelCall,
  toolCalls,
  closingKeys,
  closing,
  started,
  cutAfter,
  closingEvent,
  startAttributes,
} from '../support/history-json.js';

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

    // Just listed the task's tools (local activities' markers): no step yet.
    const listing = planned.events.find((event) => event.markerRecordedEventAttributes)!;
    expect(read(cutAfter(planned, listing))).toMatchObject({ status: 'running', steps: [] });
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
    const listing = json.events.find((event) => event.markerRecordedEventAttributes)!;
    expect(describeEvent(same(listing))).toBe('MarkerRecorded local activity listFunctionTools');
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
