// The histories of a continue-as-new chain, and why a run of it stopped.
import type { Client } from '@temporalio/client';
import type { History } from '@temporalio/common/lib/proto-utils.js';
import { ACTIVITY } from '../src/protocol/activity-names.js';

/**
 * Every run's history, oldest first, found by following each run's continue-as-new link to the next: exact as soon
 * as the chain has closed, where a visibility query may still lag behind.
 */
export async function chainRunHistories(client: Client, workflowId: string, firstRunId: string): Promise<History[]> {
  const histories: History[] = [];
  for (let runId: string | undefined = firstRunId; runId;) {
    const history = await client.workflow.getHandle(workflowId, runId).fetchHistory();
    histories.push(history);
    runId = history.events?.at(-1)?.workflowExecutionContinuedAsNewEventAttributes?.newExecutionRunId ?? undefined;
  }
  return histories;
}

/** How many transcript compactions (summarising model calls) a chain made. */
export function countCompactions(histories: readonly History[]): number {
  let count = 0;
  for (const event of histories.flatMap((history) => history.events ?? [])) {
    const scheduled = event.activityTaskScheduledEventAttributes;
    const data =
      scheduled?.activityType?.name === ACTIVITY.callModel ? scheduled.input?.payloads?.[0]?.data : undefined;
    if (data && (JSON.parse(Buffer.from(data).toString('utf8')) as { purpose?: string }).purpose === 'compaction')
      count += 1;
  }
  return count;
}

/** The last failure recorded in a chain (a workflow task, an activity or the run itself), if any. */
export function lastFailure(histories: readonly History[]): string | undefined {
  const events = histories.at(-1)?.events ?? [];
  for (const event of [...events].reverse()) {
    const failure =
      event.workflowTaskFailedEventAttributes?.failure ??
      event.activityTaskFailedEventAttributes?.failure ??
      event.workflowExecutionFailedEventAttributes?.failure;
    if (failure?.message)
      return failure.cause?.message ? `${failure.message}: ${failure.cause.message}` : failure.message;
    if (event.workflowExecutionTerminatedEventAttributes)
      return `terminated (${event.workflowExecutionTerminatedEventAttributes.reason ?? 'no reason'})`;
  }
  return undefined;
}
