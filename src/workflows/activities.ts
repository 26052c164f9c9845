// Sandboxed: activity proxies with their retry policies. Imported by workflow code only (type-only activity imports).
import { proxyActivities } from '@temporalio/workflow';
import type { Activities, ToolActivity } from '../activities/index.js';
import type { ToolActivityPolicy } from '../tools/define-tool.js';

// SDK retries are off in the provider; this policy is the only retry loop for model calls.
export const { callModel } = proxyActivities<Activities>({
  startToCloseTimeout: '5 minutes',
  heartbeatTimeout: '30 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: 8 },
});

/** Bookkeeping activities that must run where the workspace is. */
export function workspaceActivities(taskQueue: string | undefined) {
  return proxyActivities<Activities>({
    ...(taskQueue ? { taskQueue } : {}),
    startToCloseTimeout: '30 seconds',
    retry: { maximumAttempts: 3 },
  });
}

/** Worker facts recorded once per task (function tools), on any worker of the run's own queue. */
export const { listFunctionTools } = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { maximumAttempts: 3 },
});

/** The activity of one tool call: the tool's own retry policy and timeouts, a readable summary, the workspace's queue. */
export function toolActivity(
  name: string,
  policy: ToolActivityPolicy,
  options: { summary: string; taskQueue: string | undefined },
): ToolActivity {
  const activities = proxyActivities<Record<string, ToolActivity>>({
    ...(options.taskQueue ? { taskQueue: options.taskQueue } : {}),
    startToCloseTimeout: policy.startToCloseTimeoutMs,
    ...(policy.heartbeatTimeoutMs ? { heartbeatTimeout: policy.heartbeatTimeoutMs } : {}),
    retry: { initialInterval: '1 second', maximumAttempts: policy.maximumAttempts },
    summary: options.summary,
  });
  return activities[name]!;
}
