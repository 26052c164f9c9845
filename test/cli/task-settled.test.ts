import type { WorkflowHandle } from '@temporalio/client';
import proto from '@temporalio/proto';
import { describe, expect, it } from 'vitest';
import { untilNoTaskWaits } from '../../src/cli/task-settled.js';

const { PendingWorkflowTaskState } = proto.temporal.api.enums.v1;

/** A handle whose description shows the given pending task states, one a call, the last one from then on. */
function handleShowing(states: (number | undefined)[]): { handle: WorkflowHandle; calls: () => number } {
  let calls = 0;
  const describe = async () => {
    const state = states[Math.min(calls++, states.length - 1)];
    return { raw: { pendingWorkflowTask: state === undefined ? null : { state } } };
  };
  return { handle: { describe } as unknown as WorkflowHandle, calls: () => calls };
}

describe('untilNoTaskWaits', () => {
  it('waits while a task is scheduled and goes once a worker has started it', async () => {
    const { PENDING_WORKFLOW_TASK_STATE_SCHEDULED: scheduled, PENDING_WORKFLOW_TASK_STATE_STARTED: started } =
      PendingWorkflowTaskState;
    const { handle, calls } = handleShowing([scheduled, scheduled, started]);
    await untilNoTaskWaits(handle, Date.now() + 5_000);
    expect(calls()).toBe(3);
  });

  it('goes at once when no task is pending', async () => {
    const { handle, calls } = handleShowing([undefined]);
    await untilNoTaskWaits(handle, Date.now() + 5_000);
    expect(calls()).toBe(1);
  });

  it('gives up at the deadline when no worker ever starts the task', async () => {
    const { handle } = handleShowing([PendingWorkflowTaskState.PENDING_WORKFLOW_TASK_STATE_SCHEDULED]);
    const started = Date.now();
    await untilNoTaskWaits(handle, started + 400);
    expect(Date.now() - started).toBeGreaterThanOrEqual(300);
    expect(Date.now() - started).toBeLessThan(1_500);
  });
});
