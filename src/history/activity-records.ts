// Node: the activities of a run's history, each with its input, outcome and timing, whether it ran as an activity
// task or as a local activity (a marker).
import { ACTIVITY } from '../protocol/activity-names.js';
import type { ModelTurn } from '../protocol/model.js';
import type { ToolActivityInput } from '../protocol/tool-activity.js';
import type { HistoryEvent } from './events.js';
import {
  closesRun,
  decodeEventPayload,
  decodeEventPayloads,
  describeRecordedFailure,
  isObject,
  stringOrEmpty,
  timeOf,
} from './events.js';

/** One activity of a run as its history records it. */
export interface ActivityRecord {
  activityType: string;
  input: unknown;
  summary: string;
  scheduledAt: number;
  closedAt?: number;
  attempt: number;
  lastFailure?: string;
  outcome: 'running' | 'completed' | 'failed' | 'timed_out' | 'cancelled';
  cancelRequested?: boolean;
  result?: unknown;
  failure?: string;
}

/**
 * Activities that are neither a model turn nor a tool call: the function-tool and MCP-tool listings recorded once per
 * task, and the Bash classification that gates a call (its outcome travels in the tool activity's own input).
 */
const BOOKKEEPING_ACTIVITIES: ReadonlySet<string> = new Set([
  ACTIVITY.listFunctionTools,
  ACTIVITY.listMcpTools,
  ACTIVITY.classifyBash,
]);

function isToolInput(value: unknown): value is ToolActivityInput {
  return isObject(value) && typeof value.callId === 'string' && typeof value.turn === 'number' && isObject(value.input);
}

export function isToolActivity(record: ActivityRecord): record is ActivityRecord & { input: ToolActivityInput } {
  return (
    record.activityType !== ACTIVITY.callModel &&
    !BOOKKEEPING_ACTIVITIES.has(record.activityType) &&
    isToolInput(record.input)
  );
}

export function isModelTurn(value: unknown): value is ModelTurn {
  return isObject(value) && Array.isArray(value.toolCalls);
}

/**
 * A tool call that ran as a local activity (a read on the workflow's own host): its marker holds the result, which
 * names the call, and the times; a local activity that failed for good left no result, and the workflow's envelope for
 * it travels with the next model request.
 */
function localToolCall(event: HistoryEvent, time: number): ActivityRecord | undefined {
  const marker = event.markerRecordedEventAttributes;
  if (marker?.markerName !== 'core_local_activity') return undefined;
  const data = decodeEventPayloads(marker.details?.data?.payloads);
  const result = decodeEventPayloads(marker.details?.result?.payloads);
  if (!isObject(data) || typeof data.activity_type !== 'string' || !isObject(result) || !isObject(result.call))
    return undefined;
  const scheduled = isObject(data.original_schedule_time) ? protoTime(data.original_schedule_time) : time;
  return {
    activityType: data.activity_type,
    input: { ...result.call, input: {}, paramsInput: {} },
    summary: stringOrEmpty(decodeEventPayload(event.userMetadata?.summary)),
    scheduledAt: scheduled,
    closedAt: isObject(data.complete_time) ? protoTime(data.complete_time) : time,
    attempt: typeof data.attempt === 'number' ? data.attempt : 1,
    outcome: 'completed',
    result,
  };
}

function protoTime(value: Record<string, unknown>): number {
  return Number(value.seconds ?? 0) * 1000 + Math.floor(Number(value.nanos ?? 0) / 1_000_000);
}

/** Collects every activity by its scheduled event id, with its outcome and timing. */
export function collectActivities(events: HistoryEvent[]): Map<string, ActivityRecord> {
  const activities = new Map<string, ActivityRecord>();
  const find = (scheduledEventId: unknown): ActivityRecord | undefined => activities.get(String(scheduledEventId));
  for (const event of events) {
    const time = timeOf(event);
    const local = localToolCall(event, time);
    if (local) {
      activities.set(String(event.eventId), local);
      continue;
    }
    const scheduled = event.activityTaskScheduledEventAttributes;
    if (scheduled) {
      activities.set(String(event.eventId), {
        activityType: scheduled.activityType?.name ?? '',
        input: decodeEventPayloads(scheduled.input?.payloads),
        summary: stringOrEmpty(decodeEventPayload(event.userMetadata?.summary)),
        scheduledAt: time,
        attempt: 0,
        outcome: 'running',
      });
      continue;
    }
    const started = event.activityTaskStartedEventAttributes;
    if (started) {
      const record = find(started.scheduledEventId);
      if (record) {
        record.attempt = started.attempt ?? 1;
        // The server writes one started event, for the last attempt; the failure before it is all it keeps of the retries.
        if (started.lastFailure) record.lastFailure = describeRecordedFailure(started.lastFailure);
      }
      continue;
    }
    const cancelRequested = event.activityTaskCancelRequestedEventAttributes;
    if (cancelRequested) {
      const record = find(cancelRequested.scheduledEventId);
      if (record) record.cancelRequested = true;
      continue;
    }
    if (closesRun(event)) {
      // A run closes without waiting for activities it cancelled (or that a termination cut off): they end with it.
      for (const record of activities.values()) {
        if (record.outcome !== 'running') continue;
        record.outcome = 'cancelled';
        record.failure = record.cancelRequested ? 'cancelled' : 'abandoned: the run closed first';
        record.closedAt = time;
      }
      continue;
    }
    const completed = event.activityTaskCompletedEventAttributes;
    const failed = event.activityTaskFailedEventAttributes;
    const timedOut = event.activityTaskTimedOutEventAttributes;
    const cancelled = event.activityTaskCanceledEventAttributes;
    const closing = completed ?? failed ?? timedOut ?? cancelled;
    if (!closing) continue;
    const record = find(closing.scheduledEventId);
    if (!record) continue;
    record.closedAt = time;
    if (completed) {
      record.outcome = 'completed';
      record.result = decodeEventPayloads(completed.result?.payloads);
    } else if (failed) {
      record.outcome = 'failed';
      record.failure = describeRecordedFailure(failed.failure);
    } else if (timedOut) {
      record.outcome = 'timed_out';
      record.failure = describeRecordedFailure(timedOut.failure);
    } else {
      record.outcome = 'cancelled';
      record.failure = 'cancelled';
    }
  }
  return activities;
}
