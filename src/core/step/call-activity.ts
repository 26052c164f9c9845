// Workflow-safe: what a call asks of the activities: the shell classification of a command, and the tool activity's
// input with where it runs (the workflow's own worker first for a short read, else the workspace's queue).
import type { ToolActivityInput } from '../../protocol/tool-activity.js';
import type { BashClassification } from '../../protocol/bash-classification.js';
import { readStateFor } from './call-paths.js';
import type { StepEnv } from './step-env.js';
import type { AgentInput, AgentState } from '../state.js';
import { checkpointIgnore } from '../state.js';
import type { CallNeed, CallRun } from './call-run.js';

export function classifyNeed(env: StepEnv, run: CallRun): CallNeed {
  const command = String(run.input.command);
  const label = command.replace(/\s+/g, ' ');
  return {
    type: 'classify',
    command,
    cwd: typeof run.input.cwd === 'string' ? run.input.cwd : '.',
    workspace: env.input.workspace,
    ...(env.input.toolTaskQueue ? { taskQueue: env.input.toolTaskQueue } : {}),
    summary: `classifyBash ${label.length > 80 ? `${label.slice(0, 79)}…` : label}`,
  };
}

/** The tool activity's input: validated arguments, and only the read-state entry of the call's own path. */
export function activityNeed(env: StepEnv, run: CallRun, tryLocal: boolean): CallNeed {
  const { state, input } = env;
  const policy = run.tool.activity(run.input);
  const request: ToolActivityInput = {
    taskId: state.taskId,
    turn: state.step,
    index: run.index,
    callId: run.callId,
    workspace: input.workspace,
    input: run.input,
    paramsInput: run.context.params_input,
    maximumAttempts: policy.maximumAttempts,
    ...(run.context.repairs ? { repairs: run.context.repairs } : {}),
    ...(run.context.ignored_params ? { ignoredParams: run.context.ignored_params } : {}),
    ...(run.tool.usesReadState ? { readState: readStateFor(state, run.lexicalPath) } : {}),
    ...(run.classification ? { classification: activityClassification(run.classification) } : {}),
    ...(input.envPass?.length && run.tool.confirmation === 'command' ? { envPass: input.envPass } : {}),
    // A call that asked runs only once approved.
    ...(run.permission?.action === 'ask' ? { approved: true } : {}),
    ...(run.fallback ? { fallback: run.fallback } : {}),
    ...(run.tool.origin === 'mcp' && state.mcp ? { mcp: { catalog: state.mcp.catalog, tool: run.tool.name } } : {}),
    ...checkpointRequest(state, input, run),
  };
  // A short read is tried in the workflow's own worker first; a run pinned to a host sends it there when this worker
  // does not own the workspace (the read answers `elsewhere`). MCP calls never are: they may take minutes, need
  // heartbeats, and belong to the worker that holds the server's connection.
  const local = tryLocal && run.tool.isConcurrencySafe(run.input) && run.tool.origin !== 'mcp';
  run.local = local;
  return {
    type: 'activity',
    tool: run.tool.activityType ?? run.tool.name,
    policy,
    request: local && input.toolTaskQueue ? { ...request, onlyOnHost: input.toolTaskQueue } : request,
    summary: run.tool.summarize(run.input),
    local,
    ...(!local && input.toolTaskQueue ? { taskQueue: input.toolTaskQueue } : {}),
  };
}

/** A call that may change the workspace (anything but a read) is followed by a checkpoint, unless the run has none. */
function recordsCheckpoints(input: AgentInput, run: CallRun): boolean {
  return input.checkpoints !== false && run.tool.category !== 'read';
}

/** Before the run's first call that may change the workspace: its files as they are, recorded where they are. */
export function baselineNeed(env: StepEnv, run: CallRun): CallNeed | undefined {
  const { state, input } = env;
  if (state.checkpoint !== undefined || run.baselineAsked || !recordsCheckpoints(input, run)) return undefined;
  const ignore = checkpointIgnore(input);
  return {
    type: 'baseline',
    workspace: input.workspace,
    ...(ignore ? { ignore } : {}),
    ...(input.toolTaskQueue ? { taskQueue: input.toolTaskQueue } : {}),
    summary: 'checkpointWorkspace (before the first change)',
  };
}

function checkpointRequest(state: AgentState, input: AgentInput, run: CallRun): Pick<ToolActivityInput, 'checkpoint'> {
  if (!recordsCheckpoints(input, run)) return {};
  const ignore = checkpointIgnore(input);
  const previous = state.checkpoint ?? null;
  const whole = state.checkpointStale === true;
  // Until this call's checkpoint comes back, the files may have moved on from the last one.
  state.checkpointStale = true;
  return {
    checkpoint: {
      previous,
      log: state.checkpointLog ?? null,
      ...(whole ? { whole } : {}),
      ...(ignore ? { ignore } : {}),
    },
  };
}

/** What the tool activity needs of the classification: level and rule, and the hosts a network approval covers. */
function activityClassification(classification: BashClassification): NonNullable<ToolActivityInput['classification']> {
  const { level, rule, networkHosts } = classification;
  return { level, rule, ...(networkHosts ? { networkHosts } : {}) };
}
