// Node: what a follower reads of a run, its live state and how it ended, and how an ending becomes the outcome `run`
// and `watch` print. Two readers: through the SDK's handle (handle-reader.ts), and over the embedded server's HTTP API
// (http-run-reader.ts), which needs no Temporal client loaded; so nothing here loads it either.
import type { RunEnd } from '../dev-server/http-api.js';
import { emptyUsage } from '../core/state.js';
import { runStatusOf } from '../history/run-status.js';
import type { AgentStateView } from '../protocol/run-messages.js';
import type { AgentResult } from '../protocol/run-report.js';
import { exitCodeOf } from './exit-codes.js';
import { storedText } from './stored-text.js';

/** How a followed run ended. */
export interface FollowOutcome {
  result: AgentResult;
  exitCode: number;
}

/** A run as a follower reads it; the run is followed through continue-as-new. */
export interface RunReader {
  /** The run's live state, with the progress lines after `afterSeq`. */
  state(afterSeq: number): Promise<AgentStateView>;
  /** Settles when the run has ended (a failed run too), with what it ended as. */
  ended(): Promise<FollowOutcome>;
  /** Stops reading: what is pending is abandoned where it can be. */
  close(): void;
}

/** An ending after which no run of the workflow follows. */
export type FinalEnd = Exclude<RunEnd, { kind: 'continued' }>;

/** The server's execution status of each ending but completion. */
const EXECUTION_STATUS = {
  cancelled: 'CANCELLED',
  terminated: 'TERMINATED',
  'timed-out': 'TIMED_OUT',
  failed: 'FAILED',
} as const;

/** What `run` and `watch` print and exit with for a run that ended as `end`. */
export async function outcomeOf(end: FinalEnd): Promise<FollowOutcome> {
  const outcome = (result: AgentResult): FollowOutcome => ({ result, exitCode: exitCodeOf(result.status) });
  if (end.kind === 'completed') {
    const result = end.result as AgentResult;
    const status = runStatusOf('COMPLETED', result.status);
    return outcome({ ...result, status, answer: await storedText(result.answer) });
  }
  const status = runStatusOf(EXECUTION_STATUS[end.kind]);
  const empty: AgentResult = { status, answer: null, steps: 0, toolCalls: 0, usage: emptyUsage() };
  switch (end.kind) {
    case 'cancelled':
      return outcome({ ...empty, error: 'cancelled' });
    case 'terminated':
      return outcome({ ...empty, error: end.reason ? `terminated: ${end.reason}` : 'terminated' });
    case 'timed-out':
      return outcome({ ...empty, error: 'timed out' });
    case 'failed': {
      const details = end.type === 'AgentRunFailed' ? (end.details as AgentResult | undefined) : undefined;
      return outcome(details ? { ...details, status } : { ...empty, error: end.message });
    }
  }
}
