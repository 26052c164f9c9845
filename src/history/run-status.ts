// A run's status, decided here for every command: from the server's execution status and what the workflow reports
// (the AgentStatus search attribute, the state query, its result), and back into a visibility query for `list`.
import type { WorkflowExecutionStatusName } from '@temporalio/client';
import type { RunStatus } from '../protocol/run-report.js';

/** Every run status of the CLI contract (docs/architecture.md#cli-contract). */
export const RUN_STATUSES: readonly RunStatus[] = [
  'running',
  'waiting_approval',
  'paused',
  'waiting_input',
  'completed',
  'failed',
  'cancelled',
  'terminated',
  'timed_out',
  'continued',
];

/** Whether `text` is one of the run statuses of the CLI contract. */
export function isRunStatus(text: unknown): text is RunStatus {
  return typeof text === 'string' && (RUN_STATUSES as readonly string[]).includes(text);
}

/**
 * A run's status from the server's execution status and, while it runs, what the workflow reports (the AgentStatus
 * search attribute, the state query or its result). A terminated or timed-out run is named so whatever AgentStatus
 * last said: the workflow had no chance to say more.
 */
export function runStatusOf(execution: WorkflowExecutionStatusName, reported?: unknown): RunStatus {
  const known = isRunStatus(reported) ? reported : undefined;
  switch (execution) {
    case 'RUNNING':
      return known === 'waiting_approval' || known === 'paused' || known === 'waiting_input' ? known : 'running';
    case 'CONTINUED_AS_NEW':
      return 'continued';
    case 'COMPLETED':
      return known === 'failed' ? 'failed' : 'completed';
    case 'CANCELLED':
      return 'cancelled';
    case 'TERMINATED':
      return 'terminated';
    case 'TIMED_OUT':
      return 'timed_out';
    default:
      return 'failed';
  }
}

// The inverse of runStatusOf for `list --status`. A closed run's AgentStatus may be stale (a terminated workflow never
// reports again), so closed statuses also match on the server's own execution status, and open ones require a run
// that is still open.
const visibilityClauses: Readonly<Record<RunStatus, string>> = {
  running: `ExecutionStatus = 'Running' AND AgentStatus = 'running'`,
  waiting_approval: `ExecutionStatus = 'Running' AND AgentStatus = 'waiting_approval'`,
  paused: `ExecutionStatus = 'Running' AND AgentStatus = 'paused'`,
  waiting_input: `ExecutionStatus = 'Running' AND AgentStatus = 'waiting_input'`,
  completed: `ExecutionStatus = 'Completed' AND AgentStatus = 'completed'`,
  failed: `(ExecutionStatus = 'Failed' OR (ExecutionStatus = 'Completed' AND AgentStatus = 'failed'))`,
  cancelled: `ExecutionStatus = 'Canceled'`,
  terminated: `ExecutionStatus = 'Terminated'`,
  timed_out: `ExecutionStatus = 'TimedOut'`,
  continued: `ExecutionStatus = 'ContinuedAsNew'`,
};

/** The visibility query clause selecting runs with this status. */
export function visibilityClause(status: RunStatus): string {
  return visibilityClauses[status];
}
