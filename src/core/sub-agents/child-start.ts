// Workflow-safe: what a Task call starts: the child's workflow id (derived from the call, so a replay or a retried
// workflow task never starts a second one), its input (a fresh transcript, the parent's settings, a share of what is
// left of the parent's budget, the depth and limits it inherits), or why it may not start.
import type { ProfileName } from '../../protocol/profile-names.js';
import { TOOL_PROFILES } from '../tool-selection/profiles.js';
import type { AgentInput, AgentState } from '../state.js';
import { depthOf } from './limits.js';
import { treeUsage } from './ledger.js';
import { runningChildren } from './children.js';
import { childSegment } from '../../protocol/sub-agent-ids.js';

/** The Task call's validated arguments. */
export interface TaskArguments {
  description: string;
  prompt: string;
  profile: ProfileName;
  budget_share: number;
  max_steps?: number;
}

/** A child to start, or the reason the call is refused (an INVALID_PARAM envelope the model can act on). */
export type ChildStart =
  | {
      start: true;
      segment: string;
      workflowId: string;
      input: AgentInput;
      timeoutMs: number;
      summary: string;
    }
  | { start: false; message: string };

/** The child of call `index` of the current step of the run `parentWorkflowId`. */
export function childStart(
  state: AgentState,
  input: AgentInput,
  parentWorkflowId: string,
  index: number,
  args: TaskArguments,
): ChildStart {
  const limits = input.subAgents;
  const depth = depthOf(input) + 1;
  if (!limits || depth > limits.maxDepth)
    return {
      start: false,
      message: `Sub-agents are limited to ${limits?.maxDepth ?? 0} level(s); do the work yourself.`,
    };
  const started = state.childrenStarted ?? 0;
  if (started >= limits.maxChildren)
    return {
      start: false,
      message: `This run has started ${started} sub-agents, its limit; do the rest of the work yourself.`,
    };
  const profile = TOOL_PROFILES[args.profile];
  if (input.mode === 'read_only' && profile.mode !== 'read_only')
    return {
      start: false,
      message: `This run is read-only, so its sub-agents are too: call Task with profile "read-only".`,
    };
  const budget = allotment(state, args.budget_share);
  if (budget.refusal) return { start: false, message: budget.refusal };
  const segment = childSegment(state.step, index);
  const path = input.parent ? `${input.parent.path}/${segment}` : segment;
  const maxSteps = Math.min(args.max_steps ?? limits.maxSteps, limits.maxSteps);
  const childInput: AgentInput = {
    task: args.prompt,
    workspace: input.workspace,
    selection: input.selection,
    ...(input.fallbackSelections ? { fallbackSelections: input.fallbackSelections } : {}),
    maxSteps,
    mode: profile.mode,
    askPolicy: input.askPolicy,
    profile: args.profile,
    subAgents: limits,
    parent: {
      rootWorkflowId: input.parent?.rootWorkflowId ?? parentWorkflowId,
      parentWorkflowId,
      path,
      depth,
    },
    ...(state.approvals.length ? { grantedApprovals: state.approvals } : {}),
    ...(budget.budgetUsd !== undefined ? { budgetUsd: budget.budgetUsd } : {}),
    ...(budget.maxTokens !== undefined ? { maxTokens: budget.maxTokens } : {}),
    ...inherited(input),
  };
  return {
    start: true,
    segment,
    workflowId: `${parentWorkflowId}/${segment}`,
    input: childInput,
    timeoutMs: limits.timeoutMs,
    summary: `Task ${segment} (${args.profile}, ≤ ${maxSteps} steps): ${args.description}`,
  };
}

/** The parent's settings a child runs with as they are. */
function inherited(input: AgentInput): Partial<AgentInput> {
  const keys = [
    'toolTaskQueue',
    'envPass',
    'mcpServers',
    'continueAsNewEverySteps',
    'askTimeoutMs',
    'breaker',
    'maxToolConcurrency',
    'compactAtTokens',
    'prices',
    'onBudget',
    'searchAttributes',
  ] as const;
  const picked: Partial<AgentInput> = {};
  for (const key of keys) if (input[key] !== undefined) Object.assign(picked, { [key]: input[key] });
  return picked;
}

/**
 * A share of what is left of each of the parent's limits: its limit, less what its tree spent, less what its running
 * children were allotted and have not spent yet (so children started together never get more than there is).
 */
function allotment(state: AgentState, share: number): { budgetUsd?: number; maxTokens?: number; refusal?: string } {
  const spent = treeUsage(state);
  const running = runningChildren(state);
  const result: { budgetUsd?: number; maxTokens?: number; refusal?: string } = {};
  if (state.budget.budgetUsd !== undefined) {
    const reserved = running.reduce((sum, child) => sum + Math.max(0, (child.budgetUsd ?? 0) - child.usage.costUsd), 0);
    const left = state.budget.budgetUsd - spent.costUsd - reserved;
    if (left <= 0) return { refusal: 'No cost budget is left for a sub-agent: finish the task with what you have.' };
    result.budgetUsd = left * share;
  }
  if (state.budget.maxTokens !== undefined) {
    const reserved = running.reduce(
      (sum, child) => sum + Math.max(0, (child.maxTokens ?? 0) - child.usage.totalTokens),
      0,
    );
    const left = state.budget.maxTokens - spent.totalTokens - reserved;
    if (left <= 0) return { refusal: 'No token budget is left for a sub-agent: finish the task with what you have.' };
    result.maxTokens = Math.floor(left * share);
  }
  return result;
}
