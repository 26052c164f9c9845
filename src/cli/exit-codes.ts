// Node: the CLI's exit codes and the errors that choose one.
import type { RunStatus } from '../protocol/run-report.js';

/** Exit codes of the CLI contract (docs/architecture.md#cli-contract). */
export const EXIT = {
  finished: 0,
  failed: 1,
  usage: 2,
  cancelled: 3,
  detached: 4,
} as const;

/** A usage or configuration problem: printed without a stack, exit code 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}

/** A failure the operator can act on from one line (an unreachable cluster): printed without a stack, exit code 1. */
export class CommandFailure extends Error {
  override name = 'CommandFailure';
}

/**
 * The exit code of a command that followed a run to this status (docs/architecture.md#cli-contract: 0 finished, 1
 * failed, 3 cancelled); a run that continued as new handed its task on, which goes on like a detached one.
 */
export function exitCodeOf(status: RunStatus): number {
  switch (status) {
    case 'completed':
      return EXIT.finished;
    case 'cancelled':
    case 'terminated':
      return EXIT.cancelled;
    case 'running':
    case 'waiting_approval':
    case 'paused':
    case 'waiting_input':
    case 'continued':
      return EXIT.detached;
    case 'failed':
    case 'timed_out':
      return EXIT.failed;
  }
}
