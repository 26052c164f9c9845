// What the server's histories say about timing, for the load test, the soak and the benches: activities whose heartbeat
// timed out (with no worker killed, each one a false alarm), and workflow tasks that took over a second from start to
// completion (the time a run answers no query, approval or cancel).
import type { Client } from '@temporalio/client';
import proto from '@temporalio/proto';

/** The timing figures of a set of runs. */
export interface TaskTimings {
  runs: number;
  heartbeatTimeouts: number;
  /** Workflow tasks over SLOW_TASK_MS. */
  slowWorkflowTasks: number;
  longestWorkflowTaskMs: number;
}

/** The limit a workflow task must stay under. */
export const SLOW_TASK_MS = 1_000;

type HistoryEvent = proto.temporal.api.history.v1.IHistoryEvent;

const { EventType, TimeoutType } = proto.temporal.api.enums.v1;

function millis(event: HistoryEvent): number {
  const time = event.eventTime;
  return time ? Number(time.seconds ?? 0) * 1000 + Math.floor((time.nanos ?? 0) / 1e6) : Number.NaN;
}

/** The figures of one history. */
export function historyTimings(events: HistoryEvent[]): TaskTimings {
  let heartbeatTimeouts = 0;
  let slowWorkflowTasks = 0;
  let longestWorkflowTaskMs = 0;
  const started = new Map<number, number>();
  for (const event of events) {
    const type = event.eventType;
    if (type === EventType.EVENT_TYPE_WORKFLOW_TASK_STARTED) started.set(Number(event.eventId), millis(event));
    if (type === EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED) {
      const from = started.get(Number(event.workflowTaskCompletedEventAttributes?.startedEventId));
      const ms = from === undefined ? 0 : millis(event) - from;
      longestWorkflowTaskMs = Math.max(longestWorkflowTaskMs, ms);
      if (ms > SLOW_TASK_MS) slowWorkflowTasks++;
    }
    if (
      type === EventType.EVENT_TYPE_ACTIVITY_TASK_TIMED_OUT &&
      event.activityTaskTimedOutEventAttributes?.failure?.timeoutFailureInfo?.timeoutType ===
        TimeoutType.TIMEOUT_TYPE_HEARTBEAT
    )
      heartbeatTimeouts++;
  }
  return { runs: 1, heartbeatTimeouts, slowWorkflowTasks, longestWorkflowTaskMs };
}

/**
 * The figures of every run (each run of each workflow) started on the server since `sinceMs` (Date.now()), on
 * `taskQueue` when given (a server other tests share).
 */
export async function timingsSince(client: Client, sinceMs: number, taskQueue?: string): Promise<TaskTimings> {
  const total: TaskTimings = { runs: 0, heartbeatTimeouts: 0, slowWorkflowTasks: 0, longestWorkflowTaskMs: 0 };
  const query = `StartTime >= "${new Date(sinceMs).toISOString()}"${taskQueue ? ` AND TaskQueue = "${taskQueue}"` : ''}`;
  for await (const execution of client.workflow.list({ query })) {
    const history = await client.workflow.getHandle(execution.workflowId, execution.runId).fetchHistory();
    const timings = historyTimings(history.events ?? []);
    total.runs++;
    total.heartbeatTimeouts += timings.heartbeatTimeouts;
    total.slowWorkflowTasks += timings.slowWorkflowTasks;
    total.longestWorkflowTaskMs = Math.max(total.longestWorkflowTaskMs, timings.longestWorkflowTaskMs);
  }
  return total;
}

/** "0 heartbeat timeouts, 0 workflow tasks over 1 s (longest 212 ms) in 50 runs". */
export function describeTimings(timings: TaskTimings): string {
  return (
    `${timings.heartbeatTimeouts} heartbeat timeouts, ${timings.slowWorkflowTasks} workflow tasks over ` +
    `${SLOW_TASK_MS / 1000} s (longest ${timings.longestWorkflowTaskMs} ms) in ${timings.runs} runs`
  );
}
