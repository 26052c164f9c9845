// What an operator reads about a waiting run in `temporal workflow describe` and the Web UI's pending activities: the
// last failure of each activity the server is retrying, and the details an activity heartbeats while it waits.
import type { WorkflowHandle } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';

/** The run's pending activities' last-failure messages and heartbeat details, as "activityType: text". */
export async function pendingFailures(handle: WorkflowHandle): Promise<string[]> {
  const description = await handle.describe();
  return (description.raw.pendingActivities ?? []).flatMap((activity) => {
    const name = activity.activityType?.name ?? '?';
    const details = (activity.heartbeatDetails?.payloads ?? []).map((payload) =>
      String(defaultPayloadConverter.fromPayload(payload)),
    );
    return [...(activity.lastFailure?.message ? [activity.lastFailure.message] : []), ...details].map(
      (text) => `${name}: ${text}`,
    );
  });
}
