// Saved histories of real runs (test/fixtures/histories) as JSON, and the means to find and edit their events: by type
// and attributes, never by position, so the tests hold when the workflow schedules other activities.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils.js';
import { localActivityType } from '../../src/history/events.js';
import { readRunHistory } from '../../src/history/history-reader.js';

export type JsonEvent = Record<string, any> & { eventId: string; eventType: string; eventTime: string };
export type JsonHistory = { events: JsonEvent[] };

export function fixture(name: string): JsonHistory {
  const path = fileURLToPath(new URL(`../fixtures/histories/${name}.json`, import.meta.url));
  return JSON.parse(readFileSync(path, 'utf8')) as JsonHistory;
}

export function read(json: JsonHistory) {
  return readRunHistory(historyFromJSON(json));
}

export function base64Json(value: unknown): { metadata: { encoding: string }; data: string } {
  return {
    metadata: { encoding: Buffer.from('json/plain').toString('base64') },
    data: Buffer.from(JSON.stringify(value)).toString('base64'),
  };
}

export function payloadValue(payloads: { data: string }[] | undefined): any {
  return payloads?.[0] ? JSON.parse(Buffer.from(payloads[0].data, 'base64').toString('utf8')) : undefined;
}

/** The ActivityTaskScheduled events of one activity type, in history order. */
export function scheduled(json: JsonHistory, activityType: string): JsonEvent[] {
  return json.events.filter((event) => event.activityTaskScheduledEventAttributes?.activityType?.name === activityType);
}

/** The activity types of the local activities' markers, in history order. */
export function localActivities(json: JsonHistory): string[] {
  return historyFromJSON(json).events!.flatMap((event) => localActivityType(event) ?? []);
}

export function scheduledInput(event: JsonEvent): any {
  return payloadValue(event.activityTaskScheduledEventAttributes.input?.payloads);
}

/** The scheduled event of the model call of `step`. */
export function modelCall(json: JsonHistory, step: number): JsonEvent {
  const found = scheduled(json, 'callModel').find((event) => scheduledInput(event)?.step === step);
  if (!found) throw new Error(`no callModel for step ${step}`);
  return found;
}

/** The scheduled events of the tool activities of `turn`, in history order. */
export function toolCalls(json: JsonHistory, turn: number): JsonEvent[] {
  return json.events.filter((event) => {
    const input = event.activityTaskScheduledEventAttributes ? scheduledInput(event) : undefined;
    return typeof input?.callId === 'string' && input.turn === turn;
  });
}

export const closingKeys = [
  'activityTaskCompletedEventAttributes',
  'activityTaskFailedEventAttributes',
  'activityTaskTimedOutEventAttributes',
  'activityTaskCanceledEventAttributes',
];

/** The event that closed the activity scheduled by `scheduledEvent`. */
export function closing(json: JsonHistory, scheduledEvent: JsonEvent): JsonEvent {
  const found = json.events.find((event) =>
    closingKeys.some((key) => event[key]?.scheduledEventId === scheduledEvent.eventId),
  );
  if (!found) throw new Error(`activity ${scheduledEvent.eventId} never closed`);
  return found;
}

export function started(json: JsonHistory, scheduledEvent: JsonEvent): JsonEvent {
  const found = json.events.find(
    (event) => event.activityTaskStartedEventAttributes?.scheduledEventId === scheduledEvent.eventId,
  );
  if (!found) throw new Error(`activity ${scheduledEvent.eventId} never started`);
  return found;
}

/** The history up to and including `last`, as a run fetched at that moment would show it. */
export function cutAfter(json: JsonHistory, last: JsonEvent): JsonHistory {
  const index = json.events.indexOf(last);
  if (index < 0) throw new Error('event not in history');
  return { ...json, events: json.events.slice(0, index + 1) };
}

const closingRunTypes = ['COMPLETED', 'FAILED', 'TIMED_OUT', 'CANCELED', 'TERMINATED', 'CONTINUED_AS_NEW'];

export function closingEvent(json: JsonHistory): JsonEvent {
  const found = json.events.find((event) =>
    closingRunTypes.some((type) => event.eventType === `EVENT_TYPE_WORKFLOW_EXECUTION_${type}`),
  );
  if (!found) throw new Error('history has no closing event');
  return found;
}

export function startAttributes(json: JsonHistory): Record<string, any> {
  return json.events[0]!.workflowExecutionStartedEventAttributes;
}

/**
 * A history in one line — "19:WORKFLOW_TASK_SCHEDULED 22:WORKFLOW_EXECUTION_UPDATE_ACCEPTED(pause@19) …" — printed when
 * a test that interleaves workers, Updates and timers fails, so the interleaving that broke it can be read off the log.
 */
export function outline(json: JsonHistory): string {
  return json.events
    .map((event) => {
      const type = event.eventType.replace(/^EVENT_TYPE_/, '');
      const activity = event.activityTaskScheduledEventAttributes?.activityType?.name;
      const update = event.workflowExecutionUpdateAcceptedEventAttributes;
      const detail = activity
        ? `(${activity})`
        : update
          ? `(${update.acceptedRequest?.input?.name}@${update.acceptedRequestSequencingEventId})`
          : (event.workflowTaskTimedOutEventAttributes?.timeoutType ?? '').replace(/^TIMEOUT_TYPE_/, '');
      return `${event.eventId}:${type}${detail ? (detail.startsWith('(') ? detail : `(${detail})`) : ''}`;
    })
    .join(' ');
}
