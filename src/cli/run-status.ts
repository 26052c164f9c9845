import type { WorkflowExecutionStatusName } from '@temporalio/client';
import type { RunStatus } from '../core/state.js';

/** Every run status of the CLI contract (DESIGN.md). */
export const RUN_STATUSES: readonly RunStatus[] = ['running', 'waiting_approval', 'completed', 'failed', 'cancelled'];

/** Whether `text` is one of the run statuses of the CLI contract. */
export function isRunStatus(text: unknown): text is RunStatus {
  return typeof text === 'string' && (RUN_STATUSES as readonly string[]).includes(text);
}

/**
 * A run's status from the server's execution status and, while it runs, what the workflow reports (the AgentStatus
 * search attribute or the state query). Terminated runs count as cancelled: the workflow had no chance to say more.
 */
export function runStatusOf(execution: WorkflowExecutionStatusName, reported?: unknown): RunStatus {
  const known = isRunStatus(reported) ? reported : undefined;
  switch (execution) {
    case 'RUNNING':
    case 'CONTINUED_AS_NEW':
      return known === 'waiting_approval' ? 'waiting_approval' : 'running';
    case 'COMPLETED':
      return known === 'failed' ? 'failed' : 'completed';
    case 'CANCELLED':
    case 'TERMINATED':
      return 'cancelled';
    default:
      return 'failed';
  }
}
