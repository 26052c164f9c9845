// The pending workflow task state of a test's run, asked the way the CLI's Update interceptor asks it.
import type { WorkflowHandle } from '@temporalio/client';
import type { PendingTaskState } from '../../src/cli/task-settled.js';
import { pendingTaskStateOf } from '../../src/cli/task-settled.js';

export function pendingTaskOf(handle: WorkflowHandle): PendingTaskState {
  return pendingTaskStateOf(handle.client.connection, handle.client.options.namespace, handle.workflowId);
}
