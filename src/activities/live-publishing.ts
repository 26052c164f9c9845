// Node: the model-call activity's live publisher: the call's identity from Temporal's activity context (workflow and
// run ids, activity id, attempt) and the request's step and purpose. A retry says first that the attempts before it
// are void, so watchers drop their output and show this one in full.
import type { Context } from '@temporalio/activity';
import type { ModelRequest } from '../protocol/model.js';
import type { LiveChannel, LivePublisher } from '../live/live-channel.js';

/**
 * The publisher of this activity attempt (a retry's first event is `superseded`); none for an activity outside a
 * workflow.
 */
export function livePublisherFor(
  channel: LiveChannel,
  context: Context,
  request: Pick<ModelRequest, 'step' | 'purpose'>,
): LivePublisher | undefined {
  const { info } = context;
  const execution = info.workflowExecution;
  if (!execution) return undefined;
  const publisher = channel.publisher({
    workflowId: execution.workflowId,
    runId: execution.runId,
    activityId: info.activityId,
    step: request.step,
    attempt: info.attempt,
    purpose: request.purpose === 'compaction' ? 'compaction' : 'step',
  });
  if (info.attempt > 1) publisher.publish({ kind: 'superseded', supersededAttempt: info.attempt - 1 });
  return publisher;
}
