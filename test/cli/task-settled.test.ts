// The wait before an Update (src/cli/task-settled.ts): while the run's workflow task is scheduled and unstarted, the
// Update is held; once a worker has started it, or at the deadline, it goes.
import type { WorkflowStartUpdateInput, WorkflowStartUpdateOutput } from '@temporalio/client';
import proto from '@temporalio/proto';
import { describe, expect, it } from 'vitest';
import { untilNoTaskWaits, updateAfterWaitingTask } from '../../src/cli/task-settled.js';

const { PENDING_WORKFLOW_TASK_STATE_SCHEDULED: SCHEDULED, PENDING_WORKFLOW_TASK_STATE_STARTED: STARTED } =
  proto.temporal.api.enums.v1.PendingWorkflowTaskState;

/** Pending task states, one a call, the last one from then on. */
function showing(states: (number | undefined)[]) {
  let calls = 0;
  const state = async () => states[Math.min(calls++, states.length - 1)];
  return { state, calls: () => calls };
}

describe('untilNoTaskWaits', () => {
  it('waits while a task is scheduled and goes once a worker has started it', async () => {
    const { state, calls } = showing([SCHEDULED, SCHEDULED, STARTED]);
    await untilNoTaskWaits(state, Date.now() + 5_000);
    expect(calls()).toBe(3);
  });

  it('goes at once when no task is pending', async () => {
    const { state, calls } = showing([undefined]);
    await untilNoTaskWaits(state, Date.now() + 5_000);
    expect(calls()).toBe(1);
  });

  it('gives up at the deadline when no worker ever starts the task', async () => {
    const { state } = showing([SCHEDULED]);
    const started = Date.now();
    await untilNoTaskWaits(state, started + 400);
    expect(Date.now() - started).toBeGreaterThanOrEqual(300);
    expect(Date.now() - started).toBeLessThan(1_500);
  });
});

describe('the Update interceptor of the CLI client', () => {
  it("sends an Update only once the server shows the run's task started, asking for that run", async () => {
    const { state, calls } = showing([SCHEDULED, SCHEDULED, STARTED]);
    const asked: unknown[] = [];
    const connection = {
      workflowService: {
        describeWorkflowExecution: async (request: unknown) => {
          asked.push(request);
          return { pendingWorkflowTask: { state: await state() } };
        },
      },
    };
    const interceptor = updateAfterWaitingTask(connection as never, 'team');
    let describedBeforeSending = 0;
    const output: WorkflowStartUpdateOutput = { updateId: 'u', workflowRunId: 'r' };
    const input = { workflowExecution: { workflowId: 'agent-x', runId: 'r' } } as WorkflowStartUpdateInput;
    const sent = await interceptor.startUpdate!(input, async (passed) => {
      describedBeforeSending = calls();
      expect(passed).toBe(input);
      return output;
    });
    expect(sent).toBe(output);
    expect(describedBeforeSending).toBe(3);
    expect(asked[0]).toEqual({ namespace: 'team', execution: { workflowId: 'agent-x', runId: 'r' } });
  });
});
