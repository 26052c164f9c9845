// Polling for end-to-end tests: runs, workers and visibility move on their own; tests wait until they have.
import type { Client } from '@temporalio/client';
import type { AgentStateView } from '../../src/protocol/run-messages.js';
import { stateQuery } from '../../src/protocol/run-messages.js';

/** How long to keep polling, and how often. */
export interface WaitOptions {
  timeoutMs?: number;
  intervalMs?: number;
}

/**
 * Calls `probe` until it returns something other than undefined and returns that. A probe that throws counts as
 * "not yet" (a query to a run that has not started, a list that is not consistent yet). Throws once `timeoutMs` passed.
 */
export async function waitFor<T>(
  probe: () => Promise<T | undefined>,
  what: string,
  options: WaitOptions = {},
): Promise<T> {
  const { timeoutMs = 30_000, intervalMs = 100 } = options;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/** The pending approval of `callId` in run `workflowId`, once the run asks for it. */
export function pendingApproval(
  client: Client,
  workflowId: string,
  callId: string,
): Promise<AgentStateView['pendingApprovals'][number]> {
  return waitFor(async () => {
    const view = await client.workflow.getHandle(workflowId).query(stateQuery);
    return view.pendingApprovals.find((pending) => pending.callId === callId);
  }, `a pending approval for ${callId}`);
}
