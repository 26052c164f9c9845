// Node: the sub-agents a run started, read from its own event history: a Task call is a child workflow, so its
// events (StartChildWorkflowExecutionInitiated, ChildWorkflowExecutionStarted, then one closing event) say which child
// it started and how long it ran. The child's steps are in the child's own history.
import type { HistoryEvent } from './events.js';
import { timeOf } from './events.js';

/** How a child workflow ended, as its parent's history records it (`running` while it has not). */
export type ChildOutcome =
  'running' | 'completed' | 'failed' | 'cancelled' | 'timed_out' | 'terminated' | 'not_started';

/** One child workflow a run started. */
export interface ChildRecordOfHistory {
  workflowId: string;
  /** The child's first run (absent until the server has started it). */
  runId?: string;
  outcome: ChildOutcome;
  /** From the start command to the child's close, as the parent saw them; null while it runs. */
  durationMs: number | null;
}

/** The children of one run's history by their segment (the last part of their id: `task-1-0`). */
export function collectChildren(events: HistoryEvent[]): Map<string, ChildRecordOfHistory> {
  const byInitiated = new Map<string, ChildRecordOfHistory & { initiatedAt: number }>();
  for (const event of events) {
    // Long from the server, a string in a JSON file: compared as text.
    const id = String(event.eventId);
    const initiated = event.startChildWorkflowExecutionInitiatedEventAttributes;
    if (initiated?.workflowId) {
      byInitiated.set(id, {
        workflowId: initiated.workflowId,
        outcome: 'running',
        durationMs: null,
        initiatedAt: timeOf(event),
      });
      continue;
    }
    const started = event.childWorkflowExecutionStartedEventAttributes;
    if (started) {
      const child = byInitiated.get(String(started.initiatedEventId));
      if (child && started.workflowExecution?.runId) child.runId = started.workflowExecution.runId;
      continue;
    }
    const closed = closingOf(event);
    if (!closed) continue;
    const child = byInitiated.get(closed.initiatedEventId);
    if (!child) continue;
    child.outcome = closed.outcome;
    child.durationMs = Math.max(0, timeOf(event) - child.initiatedAt);
  }
  const children = new Map<string, ChildRecordOfHistory>();
  for (const { initiatedAt: _initiatedAt, ...child } of byInitiated.values())
    children.set(child.workflowId.slice(child.workflowId.lastIndexOf('/') + 1), child);
  return children;
}

function closingOf(event: HistoryEvent): { initiatedEventId: string; outcome: ChildOutcome } | undefined {
  const closings: [{ initiatedEventId?: unknown } | null | undefined, ChildOutcome][] = [
    [event.childWorkflowExecutionCompletedEventAttributes, 'completed'],
    [event.childWorkflowExecutionFailedEventAttributes, 'failed'],
    [event.childWorkflowExecutionCanceledEventAttributes, 'cancelled'],
    [event.childWorkflowExecutionTimedOutEventAttributes, 'timed_out'],
    [event.childWorkflowExecutionTerminatedEventAttributes, 'terminated'],
    [event.startChildWorkflowExecutionFailedEventAttributes, 'not_started'],
  ];
  for (const [attributes, outcome] of closings)
    if (attributes) return { initiatedEventId: String(attributes.initiatedEventId), outcome };
  return undefined;
}
