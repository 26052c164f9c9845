// Node: an Update is sent to a run only while none of its workflow tasks waits unstarted (docs/reliability.md, "An
// Update and a Query while a run changes workers").
//
// Why: when a run's worker dies with a task due (an activity of it timed out, say), the task waits on that worker's
// own queue for a moment. A Query in that moment is answered by another worker from the full history: it applies the
// new events, runs the workflow code they wake (which issues its next commands) and keeps the run cached. An Update
// arriving before the task starts rides in that same task, and the worker records its acceptance after those commands.
// Replaying the history delivers the Update and the events in one activation, the acceptance first — so every later
// replay of the run fails with TMPRL1100 (Temporal TypeScript SDK 1.24). Once the task has started, an Update waits
// for the next task, and that replays in the order it ran.
import { setTimeout as sleep } from 'node:timers/promises';
import type { Connection, WorkflowClientInterceptor } from '@temporalio/client';
import proto from '@temporalio/proto';

const SCHEDULED = proto.temporal.api.enums.v1.PendingWorkflowTaskState.PENDING_WORKFLOW_TASK_STATE_SCHEDULED;

/** How often the run is asked again while a task waits: a worker that polls starts one within milliseconds. */
const RECHECK_MS = 50;

/** The longest an Update waits for a run's task to be taken up by a worker before it is sent anyway. */
export const UPDATE_WAIT_MS = 10_000;

/** The state of the run's pending workflow task, if it has one (DescribeWorkflowExecution's). */
export type PendingTaskState = () => Promise<number | null | undefined>;

/**
 * Resolves once the run has no workflow task scheduled and unstarted, or at `deadline` (epoch ms): with no worker
 * polling a task waits for good, and the Update is then sent anyway (the server refuses or holds it).
 */
export async function untilNoTaskWaits(pendingTaskState: PendingTaskState, deadline: number): Promise<void> {
  while (Date.now() + RECHECK_MS < deadline) {
    if ((await pendingTaskState()) !== SCHEDULED) return;
    await sleep(RECHECK_MS);
  }
}

/** The pending task state of `workflowId` (its latest run unless `runId` names one), asked of the server directly. */
export function pendingTaskStateOf(
  connection: Pick<Connection, 'workflowService'>,
  namespace: string,
  workflowId: string,
  runId?: string,
): PendingTaskState {
  return async () =>
    (
      await connection.workflowService.describeWorkflowExecution({
        namespace,
        execution: { workflowId, ...(runId ? { runId } : {}) },
      })
    ).pendingWorkflowTask?.state;
}

/** The client interceptor that holds every Update until no workflow task of its run waits unstarted (see above). */
export function updateAfterWaitingTask(
  connection: Pick<Connection, 'workflowService'>,
  namespace: string,
): WorkflowClientInterceptor {
  return {
    async startUpdate(input, next) {
      const { workflowId, runId } = input.workflowExecution;
      await untilNoTaskWaits(pendingTaskStateOf(connection, namespace, workflowId, runId), Date.now() + UPDATE_WAIT_MS);
      return next(input);
    },
  };
}
