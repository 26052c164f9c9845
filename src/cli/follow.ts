import type { WorkflowHandle } from '@temporalio/client';
import { WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure, CancelledFailure, TerminatedFailure } from '@temporalio/common';
import { setTimeout as sleep } from 'node:timers/promises';
import type { AgentResult } from '../core/state.js';
import { emptyUsage } from '../core/state.js';
import type { agentWorkflow } from '../workflows/agent.js';
import { stateQuery } from '../workflows/messages.js';
import { EXIT } from './exit-codes.js';
import { formatProgress, log } from './output.js';

/** How a followed run ended. */
export interface FollowOutcome {
  result: AgentResult;
  exitCode: number;
}

const POLL_MS = 300;

/** Prints progress lines while the run works, then returns its result (also for failed or cancelled runs). */
export async function followRun(
  handle: WorkflowHandle<typeof agentWorkflow>,
  options: { quiet?: boolean; signal?: AbortSignal } = {},
): Promise<FollowOutcome> {
  let seen = 0;
  const printNew = async (): Promise<void> => {
    const view = await handle.query(stateQuery, seen);
    for (const entry of view.progress) {
      if (!options.quiet) log(formatProgress(entry));
      seen = Math.max(seen, entry.seq);
    }
  };
  let done = false;
  const outcome = handle.result().then(
    (result): FollowOutcome => ({ result, exitCode: result.status === 'completed' ? EXIT.finished : EXIT.failed }),
    (error: unknown): FollowOutcome => toOutcome(error),
  );
  void outcome.finally(() => {
    done = true;
  });
  while (!done && !options.signal?.aborted) {
    // A query can fail while no worker is polling yet; the run is still going, so keep waiting.
    await printNew().catch(() => undefined);
    await Promise.race([sleep(POLL_MS), outcome]);
  }
  if (options.signal?.aborted) throw new DetachedError();
  await printNew().catch(() => undefined);
  return outcome;
}

/** The follower stopped following (Ctrl-C); the run goes on. */
export class DetachedError extends Error {
  override name = 'DetachedError';
}

function toOutcome(error: unknown): FollowOutcome {
  const empty: AgentResult = {
    status: 'failed',
    answer: null,
    steps: 0,
    toolCalls: 0,
    usage: emptyUsage(),
  };
  if (!(error instanceof WorkflowFailedError)) throw error;
  const cause = error.cause;
  if (cause instanceof CancelledFailure) return { result: { ...empty, status: 'cancelled', error: 'cancelled' }, exitCode: EXIT.cancelled };
  if (cause instanceof TerminatedFailure) return { result: { ...empty, status: 'cancelled', error: 'terminated' }, exitCode: EXIT.cancelled };
  if (cause instanceof ApplicationFailure && cause.type === 'AgentRunFailed') {
    const details = cause.details?.[0] as AgentResult | undefined;
    return { result: details ?? { ...empty, error: cause.message }, exitCode: EXIT.failed };
  }
  return { result: { ...empty, error: cause?.message ?? error.message }, exitCode: EXIT.failed };
}
