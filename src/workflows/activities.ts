// Workflow-safe: activity proxies with their retry policies, typed by the protocol's activity interfaces.
import { ActivityCancellationType, isCancellation, proxyActivities, proxyLocalActivities } from '@temporalio/workflow';
import type { AgentActivities, AuthorizationActivities, ToolActivity } from '../protocol/activities.js';
import type { FunctionToolSpec } from '../protocol/function-tool-spec.js';
import { ACTIVITY } from '../protocol/activity-names.js';
import type { ModelRequest, ModelTurn } from '../protocol/model.js';
import type { McpListing } from '../protocol/mcp.js';
import type { AgentInput } from '../core/state.js';
import { HEARTBEAT_TIMEOUT_MS, LOCAL_READ_BOUND_MS } from '../protocol/tool-activity.js';
import type { ElsewhereResult, ToolActivityPolicy } from '../protocol/tool-activity.js';

// The first retry of a model call: soon after a lost worker is noticed, and as soon as the OpenAI SDK's own first
// retry would be (a provider that asks for longer says so in its answer, which sets the next delay).
const MODEL_RETRY_INITIAL_INTERVAL = '500 milliseconds';
// A tool call's: its retries are for a lost worker or a failing disk, not for a server asking for patience.
const TOOL_RETRY_INITIAL_INTERVAL = '200 milliseconds';

/** The model call of one step, labelled for the Web UI (`callModel step 7 gpt-4.1 (14 messages, 6 tools)`). */
export function callModel(request: ModelRequest, label?: string): Promise<ModelTurn> {
  const summary = label ?? modelCallSummary(request);
  // SDK retries are off in the provider; this policy is the only retry loop for model calls. The call heartbeats
  // while it waits for the first token too, so a lost worker is noticed in seconds and the call made again.
  const { [ACTIVITY.callModel]: activity } = proxyActivities<AgentActivities>({
    startToCloseTimeout: '5 minutes',
    heartbeatTimeout: HEARTBEAT_TIMEOUT_MS,
    retry: {
      initialInterval: MODEL_RETRY_INITIAL_INTERVAL,
      backoffCoefficient: 2,
      maximumInterval: '1 minute',
      maximumAttempts: 8,
    },
    summary,
  });
  return activity(request);
}

/** The Web UI's label of a step's model call. */
export function modelCallSummary(request: ModelRequest): string {
  const model = request.selection.model ?? 'default model';
  return `callModel step ${request.step} ${model} (${request.transcript.messages} messages, ${request.toolNames.length} tools)`;
}

/** Bookkeeping activities that must run where the workspace is. */
export function workspaceActivities(taskQueue: string | undefined, summary: string) {
  return proxyActivities<AgentActivities>({
    ...(taskQueue ? { taskQueue } : {}),
    startToCloseTimeout: '30 seconds',
    retry: { maximumAttempts: 3 },
    summary,
  });
}

/**
 * Records the run's files before its first call that may change them, where they are. A workspace read for the first
 * time by a worker may take long, so the activity heartbeats (HEARTBEAT_TIMEOUT_MS) under a long limit.
 */
export function checkpointActivity(taskQueue: string | undefined, summary: string) {
  const { [ACTIVITY.checkpointWorkspace]: activity } = proxyActivities<AgentActivities>({
    ...(taskQueue ? { taskQueue } : {}),
    startToCloseTimeout: '10 minutes',
    heartbeatTimeout: HEARTBEAT_TIMEOUT_MS,
    retry: { initialInterval: TOOL_RETRY_INITIAL_INTERVAL, maximumAttempts: 3 },
    summary,
  });
  return activity;
}

/**
 * The listings recorded once per task, so every replay and continuation sees the same tools: the worker's function
 * tools, and the MCP servers' tools, listed by a worker that owns the servers' connections (the run's tool queue, or
 * any worker of the run's queue).
 *
 * Each is asked first as a local activity in the run's first workflow task, which answers only where that is
 * immediate: the function tools are in the worker's memory, and the MCP listing is empty when there is no server to
 * connect to on the run's host. That saves a run a round trip through the server before its first model call. A local
 * listing that answers `elsewhere`, fails or outlasts LOCAL_READ_BOUND_MS is asked again as an ordinary activity, so a
 * starting worker or a stdio server starting for the run never holds the workflow task (unable to answer a query or
 * take a signal meanwhile). Connecting may start servers, hence the longer timeout; a server that fails is reported in
 * the result.
 */
export function listTaskTools(input: AgentInput): Promise<[FunctionToolSpec[], McpListing]> {
  const local = proxyLocalActivities<AgentActivities>({
    startToCloseTimeout: LOCAL_READ_BOUND_MS,
    retry: { maximumAttempts: 1 },
  });
  const onlyOnHost = input.toolTaskQueue ? { onlyOnHost: input.toolTaskQueue } : {};
  return Promise.all([
    hereOrElsewhere(() => local[ACTIVITY.listFunctionTools](), listFunctionTools),
    input.mcpServers
      ? listMcpTools(input)
      : hereOrElsewhere(
          () => local[ACTIVITY.listMcpTools]({ workspace: input.workspace, local: onlyOnHost }),
          () => listMcpTools(input),
        ),
  ]);
}

/** The local answer, or the ordinary activity's when the local one answers `elsewhere` or fails. */
async function hereOrElsewhere<T extends object>(
  here: () => Promise<T | ElsewhereResult>,
  elsewhere: () => Promise<T>,
): Promise<T> {
  try {
    const answer = await here();
    if (!('elsewhere' in answer)) return answer;
  } catch (error) {
    if (isCancellation(error)) throw error;
  }
  return await elsewhere();
}

const { [ACTIVITY.listFunctionTools]: listFunctionTools } = proxyActivities<AgentActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { maximumAttempts: 3 },
  summary: 'listFunctionTools',
});

async function listMcpTools(input: AgentInput): Promise<McpListing> {
  const { [ACTIVITY.listMcpTools]: activity } = proxyActivities<AgentActivities>({
    ...(input.toolTaskQueue ? { taskQueue: input.toolTaskQueue } : {}),
    startToCloseTimeout: '3 minutes',
    retry: { initialInterval: '1 second', maximumAttempts: 3 },
    summary: `listMcpTools${input.mcpServers ? ` (${Object.keys(input.mcpServers).join(', ')} and the worker's)` : ''}`,
  });
  const listing = await activity({
    workspace: input.workspace,
    ...(input.mcpServers ? { servers: input.mcpServers } : {}),
  });
  if ('elsewhere' in listing) throw new TypeError('listMcpTools answered elsewhere to an ordinary activity');
  return listing;
}

/**
 * A local activity: short, and any worker of the run's queue can do it, so it runs in the workflow's own worker and is
 * recorded as a marker without a round trip through the server: the content a finished run made last (written to the
 * content store every worker shares).
 */
export const { [ACTIVITY.storeContent]: storeContent } = proxyLocalActivities<AgentActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { maximumAttempts: 3 },
});

/**
 * The activity of one tool call: the tool's own retry policy and start-to-close limit, heartbeats (HEARTBEAT_TIMEOUT_MS:
 * every tool activity sends them while it runs), a readable summary, the workspace's queue. `local`: a short read,
 * tried once as a local activity in the worker running this workflow task, so the step needs no workflow task of its
 * own between the reads and the next model call; it may take LOCAL_READ_BOUND_MS at most, and one that fails, takes
 * longer, or answers `elsewhere` (a pinned run's read on a worker that does not own the workspace) runs again as an
 * ordinary activity.
 */
export function toolActivity(
  name: string,
  policy: ToolActivityPolicy,
  options: { summary: string; taskQueue: string | undefined; local?: boolean },
): ToolActivity {
  if (options.local) {
    const local = proxyLocalActivities<Record<string, ToolActivity>>({
      startToCloseTimeout: LOCAL_READ_BOUND_MS,
      retry: { maximumAttempts: 1 },
      summary: options.summary,
    });
    return local[name]!;
  }
  const activities = proxyActivities<Record<string, ToolActivity>>({
    ...(options.taskQueue ? { taskQueue: options.taskQueue } : {}),
    startToCloseTimeout: policy.startToCloseTimeoutMs,
    heartbeatTimeout: HEARTBEAT_TIMEOUT_MS,
    retry: { initialInterval: TOOL_RETRY_INITIAL_INTERVAL, maximumAttempts: policy.maximumAttempts },
    // An interrupted call is over only when its worker says so: a command's process group is killed by then, and a
    // write (which does not stop midway) has committed or not.
    cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
    summary: options.summary,
  });
  return activities[name]!;
}

/**
 * Checks a decision's signature with the operator's key, which only the worker holds: a local activity, recorded as a
 * marker, so a replay applies the same decisions.
 */
export const { [ACTIVITY.verifyDecision]: verifyDecision } = proxyLocalActivities<AuthorizationActivities>({
  startToCloseTimeout: '10 seconds',
  retry: { maximumAttempts: 3 },
  summary: 'verifyDecision',
});

/** The same check for a control message (steering, interrupt, pause, resume) of a signed run. */
export const { [ACTIVITY.verifyControl]: verifyControl } = proxyLocalActivities<AuthorizationActivities>({
  startToCloseTimeout: '10 seconds',
  retry: { maximumAttempts: 3 },
  summary: 'verifyControl',
});
