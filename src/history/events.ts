// Node: the pieces of a Temporal event history every reader of it needs: payloads decoded with the default converter
// (undefined when encrypted or absent), failures, event times, and one line naming an event.
import { defaultPayloadConverter, fromPayloadsAtIndex } from '@temporalio/common';
import type { History, Payload } from '@temporalio/common/lib/proto-utils.js';
import { ACTIVITY } from '../protocol/activity-names.js';
import { shorten } from '../tools/define-tool.js';

/** One event of a history. */
export type HistoryEvent = NonNullable<History['events']>[number];

export type Failure = NonNullable<NonNullable<HistoryEvent['activityTaskFailedEventAttributes']>['failure']>;
/** Decodes the payload at `index` with the default converter; undefined when it is absent or not decodable (e.g. encrypted). */
export function decodeEventPayloads(payloads: Payload[] | null | undefined, index = 0): unknown {
  if (!payloads || payloads.length <= index) return undefined;
  try {
    return fromPayloadsAtIndex(defaultPayloadConverter, index, payloads);
  } catch {
    return undefined;
  }
}

export function decodeEventPayload(payload: Payload | null | undefined): unknown {
  return payload ? decodeEventPayloads([payload]) : undefined;
}

/** "Type: message" of a failure, down its cause chain when the outer message says nothing on its own. */
export function describeRecordedFailure(failure: Failure | null | undefined): string {
  if (!failure) return 'unknown failure';
  const type = failure.applicationFailureInfo?.type;
  const message = failure.message || (failure.cause ? describeRecordedFailure(failure.cause) : '');
  return type ? `${type}: ${message}` : message;
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Milliseconds of an event time: seconds are a Long from the server and a plain number from a JSON file. */
export function timeOf(event: HistoryEvent): number {
  const time = event.eventTime;
  if (!time) return 0;
  const seconds = typeof time.seconds === 'number' ? time.seconds : (time.seconds?.toNumber() ?? 0);
  return seconds * 1000 + Math.floor((time.nanos ?? 0) / 1_000_000);
}

export function closesRun(event: HistoryEvent): boolean {
  return Boolean(
    event.workflowExecutionCompletedEventAttributes ??
    event.workflowExecutionFailedEventAttributes ??
    event.workflowExecutionTimedOutEventAttributes ??
    event.workflowExecutionCanceledEventAttributes ??
    event.workflowExecutionTerminatedEventAttributes ??
    event.workflowExecutionContinuedAsNewEventAttributes,
  );
}

export function stringOrEmpty(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

/** The event's type as the Web UI names it ("ActivityTaskScheduled"), from the attributes it carries. */
export function eventTypeName(event: HistoryEvent): string {
  for (const [key, value] of Object.entries(event)) {
    if (key.endsWith('EventAttributes') && value)
      return key[0]!.toUpperCase() + key.slice(1, -'EventAttributes'.length);
  }
  return `event type ${String(event.eventType)}`;
}

/** The activity type a local activity's marker records (`listFunctionTools`, `storeContent`). */
export function localActivityType(event: HistoryEvent): string | undefined {
  const marker = event.markerRecordedEventAttributes;
  if (marker?.markerName !== 'core_local_activity') return undefined;
  const data = decodeEventPayloads(marker.details?.data?.payloads);
  return isObject(data) && typeof data.activity_type === 'string' ? data.activity_type : undefined;
}

/** One line about an event: its type and what it concerns ("ActivityTaskScheduled callModel, step 2"). */
export function describeEvent(event: HistoryEvent): string {
  const type = eventTypeName(event);
  const scheduled = event.activityTaskScheduledEventAttributes;
  if (scheduled) {
    const name = scheduled.activityType?.name ?? '';
    const summary = stringOrEmpty(decodeEventPayload(event.userMetadata?.summary));
    if (summary) return `${type} ${name}: ${summary}`;
    const input = decodeEventPayloads(scheduled.input?.payloads);
    // classifyBash carries no summary of its own; the command it judges is what tells two of them apart.
    if (name === ACTIVITY.classifyBash && isObject(input) && typeof input.command === 'string')
      return `${type} ${name}: ${shorten(input.command, 100)}`;
    const step = isObject(input) ? input.step : undefined;
    return `${type} ${name}${typeof step === 'number' ? `, step ${step}` : ''}`;
  }
  const localActivity = localActivityType(event);
  if (localActivity) return `${type} local activity ${localActivity}`;
  const detail =
    event.markerRecordedEventAttributes?.markerName ??
    event.workflowExecutionSignaledEventAttributes?.signalName ??
    event.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest?.input?.name ??
    event.timerStartedEventAttributes?.timerId;
  return detail ? `${type} ${detail}` : type;
}
