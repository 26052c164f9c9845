// Replays a recorded history against a workflow bundle and, when the code no longer fits the history, names the event
// where they part: the nondeterminism message alone often says what differed but not where.
import { ACTIVITY } from '../protocol/activity-names.js';
import { HISTORY_FORMAT } from '../protocol/model.js';
import type { History } from '@temporalio/common/lib/proto-utils.js';
import { defaultPayloadConverter } from '@temporalio/common';
import { ReplayError, Worker } from '@temporalio/worker';
import type { DataConverter } from '@temporalio/common';
import type { WorkflowBundle } from '@temporalio/worker';
import { DeterminismViolationError } from '@temporalio/workflow';
import type { HistoryEvent } from './events.js';
import { describeEvent } from './events.js';

/** Where and how the code diverged from the history. */
export interface Divergence {
  /** The first event the code disagrees with; absent when it could not be pinned down. */
  eventId?: number;
  /** "ActivityTaskScheduled callModel, step 2". */
  event?: string;
  /** What differed, as the SDK's determinism check puts it. */
  message: string;
}

/** The outcome of one replay. */
export type ReplayCheck =
  | { deterministic: true; events: number }
  | { deterministic: false; events: number; kind: 'nondeterminism' | 'failure'; divergence: Divergence };

/** The SDK's message without its wrapping: the core's own sentence, e.g. "Activity type of scheduled event … does not match …". */
export function coreMessage(error: Error): string {
  const quoted = /message: "((?:[^"\\]|\\.)*)"/.exec(error.message)?.[1];
  const inner = quoted ? quoted.replace(/\\(.)/g, '$1') : (error.message.split('Details: ').pop() ?? error.message);
  return inner
    .replace(/^\[TMPRL\d+\]\s*/, '')
    .replace(/^Nondeterminism error:\s*/i, '')
    .trim();
}

/** What a replay runs with: the workflow bundle, and the data converter when payloads may be in External Storage. */
export interface ReplaySetup {
  workflowBundle: WorkflowBundle;
  dataConverter?: DataConverter;
}

async function replays(setup: ReplaySetup, history: History, workflowId: string): Promise<Error | undefined> {
  try {
    await Worker.runReplayHistory(setup, history, workflowId);
    return undefined;
  } catch (error) {
    if (error instanceof DeterminismViolationError || error instanceof ReplayError) return error;
    throw error;
  }
}

function eventNumber(event: HistoryEvent): number {
  return Number(event.eventId ?? 0);
}

/** The events a workflow task's commands produced: they point back to its completed event. */
function commandEventsOf(events: HistoryEvent[], completedEventId: number): HistoryEvent[] {
  return events.filter((event) =>
    Object.entries(event).some(
      ([key, value]) =>
        key.endsWith('EventAttributes') &&
        typeof value === 'object' &&
        value !== null &&
        'workflowTaskCompletedEventId' in value &&
        Number((value as { workflowTaskCompletedEventId: unknown }).workflowTaskCompletedEventId) === completedEventId,
    ),
  );
}

/**
 * Finds the first workflow task whose commands the code no longer reproduces. A history cut right after a workflow
 * task started replays every earlier task's commands against the recorded events and leaves that last task unchecked,
 * so the first failing cut (binary search; replays are cheap) points at the task before it.
 */
async function locate(
  setup: ReplaySetup,
  history: History,
  workflowId: string,
  message: string,
): Promise<Omit<Divergence, 'message'>> {
  const events = history.events ?? [];
  const named = /HistoryEvent\(id: (\d+)/.exec(message)?.[1];
  const namedEvent = named ? events.find((event) => eventNumber(event) === Number(named)) : undefined;
  if (namedEvent) return { eventId: eventNumber(namedEvent), event: describeEvent(namedEvent) };

  const taskStarts = events.flatMap((event, index) => (event.workflowTaskStartedEventAttributes ? [index] : []));
  let passing = 0; // the cut at the first task checks nothing
  let failing = taskStarts.length; // the whole history
  while (failing - passing > 1) {
    const middle = Math.floor((passing + failing) / 2);
    const cut = { events: events.slice(0, taskStarts[middle]! + 1) };
    if (await replays(setup, cut, workflowId)) failing = middle;
    else passing = middle;
  }
  const startedIndex = taskStarts[failing - 1];
  if (startedIndex === undefined) return {};
  const completed = events.slice(startedIndex).find((event) => event.workflowTaskCompletedEventAttributes);
  if (!completed) return {};
  const produced = commandEventsOf(events, eventNumber(completed));
  // The message quotes the recorded side ('callModel'); prefer the produced event it names.
  const quoted = [...message.matchAll(/'([^']+)'/g)].map((match) => match[1]!);
  const chosen =
    produced.find((event) => quoted.some((name) => describeEvent(event).includes(name))) ?? produced[0] ?? completed;
  return { eventId: eventNumber(chosen), event: describeEvent(chosen) };
}

/**
 * Histories recorded before transcripts moved to the content store pass the whole transcript to every model call.
 * This version cannot replay them, and saying so beats pointing at the first event where they part.
 */
export const INLINE_TRANSCRIPT_MESSAGE =
  'This history was recorded by an earlier durable-agent, whose model calls carried the whole transcript inline; ' +
  'this version keeps transcripts in the content store and passes keys, so it cannot replay that run. ' +
  'Replay it with the version that recorded it.';

/** The HISTORY_FORMAT a history was recorded in: its model requests' `format` (none: 1). */
export function recordedFormat(history: History): number {
  for (const event of history.events ?? []) {
    const scheduled = event.activityTaskScheduledEventAttributes;
    if (scheduled?.activityType?.name !== ACTIVITY.callModel) continue;
    const [payload] = scheduled.input?.payloads ?? [];
    try {
      const request = payload ? defaultPayloadConverter.fromPayload<{ format?: unknown }>(payload) : undefined;
      return typeof request?.format === 'number' ? request.format : 1;
    } catch {
      return 1;
    }
  }
  return HISTORY_FORMAT;
}

/** Why a history of another format does not replay, in place of the first event where the code parts from it. */
export function formatMessage(format: number): string {
  return (
    `This history was recorded in history format ${format}; this version of durable-agent writes format ` +
    `${HISTORY_FORMAT} and cannot replay it. Replay it with the version that recorded it.`
  );
}

function hasInlineTranscript(history: History): boolean {
  return (history.events ?? []).some((event) => {
    const scheduled = event.activityTaskScheduledEventAttributes;
    if (scheduled?.activityType?.name !== ACTIVITY.callModel) return false;
    const [payload] = scheduled.input?.payloads ?? [];
    try {
      const request = payload ? defaultPayloadConverter.fromPayload<{ messages?: unknown }>(payload) : undefined;
      return Array.isArray(request?.messages);
    } catch {
      return false;
    }
  });
}

/** Replays `history` with the workflows in `workflowBundle` (a bundle, or the bundle and a data converter). */
export async function checkReplay(
  bundle: WorkflowBundle | ReplaySetup,
  history: History,
  workflowId: string,
): Promise<ReplayCheck> {
  const setup: ReplaySetup = 'workflowBundle' in bundle ? bundle : { workflowBundle: bundle };
  const events = history.events?.length ?? 0;
  const error = await replays(setup, history, workflowId);
  if (!error) return { deterministic: true, events };
  if (hasInlineTranscript(history))
    return { deterministic: false, events, kind: 'failure', divergence: { message: INLINE_TRANSCRIPT_MESSAGE } };
  const format = recordedFormat(history);
  if (format !== HISTORY_FORMAT)
    return { deterministic: false, events, kind: 'failure', divergence: { message: formatMessage(format) } };
  const message = coreMessage(error);
  if (!(error instanceof DeterminismViolationError))
    return { deterministic: false, events, kind: 'failure', divergence: { message } };
  return {
    deterministic: false,
    events,
    kind: 'nondeterminism',
    divergence: { ...(await locate(setup, history, workflowId, message)), message },
  };
}
