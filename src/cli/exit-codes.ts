/** Exit codes of the CLI contract (DESIGN.md). */
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
