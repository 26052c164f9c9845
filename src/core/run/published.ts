// Workflow-safe: what a run publishes for operators — the Web UI's current-details text and the values of the agent
// search attributes — computed from its state, so the workflow only writes what changed.
import type { PendingApproval } from '../../protocol/approval.js';
import { approvalSummary } from '../approvals.js';
import { pausedLine } from './pause.js';
import { formatUsd } from '../pricing.js';
import type { AgentInput, AgentState } from '../state.js';
import { stepLimit } from './session.js';
import type { RunStatus } from '../../protocol/run-report.js';
import { treeUsage } from '../sub-agents/ledger.js';

/** The values behind the AgentStatus, AgentStep, AgentPendingApprovals, AgentCostUsd and AgentModel attributes. */
export interface PublishedValues {
  status: RunStatus;
  step: number;
  pendingApprovals: number;
  costUsd: number;
  model?: string;
}

/**
 * The current details of the Web UI (Markdown), most pressing first: the UI shows them in a small box, so what is
 * pending (a pause, messages not read yet, approvals) comes right after the status and the tool bookkeeping last.
 */
export function currentDetails(state: AgentState, input: AgentInput, pending: readonly PendingApproval[]): string {
  return [
    `**status** ${shownStatus(state, pending)} · **step** ${state.step} of ${stepLimit(state, input)}`,
    ...(state.status === 'paused' ? [`**${pausedLine(state)}**`] : []),
    ...conversationLine(state),
    ...(state.inbox?.length ? [`**messages waiting** ${state.inbox.length} (read before the next step)`] : []),
    `**pending approvals** ${pending.length ? pending.map((item) => `${item.callId} — ${approvalSummary(item)} (${item.reason})`).join('; ') : 'none'}`,
    ...subAgentLines(state, input),
    `**cost** ${formatUsd(treeUsage(state).costUsd)}${unpricedNote(state)} · **tokens** ${treeUsage(state).totalTokens}${state.children ? ' (with sub-agents)' : ''}`,
    `**last tool** ${state.lastTool ?? '—'} · **tool calls** ${state.toolCalls}`,
  ].join('\n\n');
}

// A conversation says which request is under way, or that the run waits for the next one and how to send it.
function conversationLine(state: AgentState): string[] {
  const conversation = state.conversation;
  if (!conversation) return [];
  if (conversation.waiting)
    return [
      `**request** ${conversation.count} answered; waiting for the next request — durable-agent continue ${state.taskId} "…"`,
    ];
  const current = conversation.requests.at(-1);
  return [`**request** ${conversation.count} (from step ${current?.step ?? 1}): ${current?.text ?? ''}`];
}

/**
 * The status operators filter by: a run whose sub-agent waits for a decision waits for one too (the decision is taken
 * here), so `AgentStatus = 'waiting_approval'` finds the root of any run that waits.
 */
export function shownStatus(state: AgentState, pending: readonly PendingApproval[]): RunStatus {
  return state.status === 'running' && pending.length > 0 ? 'waiting_approval' : state.status;
}

// A sub-agent names its parent and root; a parent lists its sub-agents, running first, at most a few.
function subAgentLines(state: AgentState, input: AgentInput): string[] {
  const lines: string[] = [];
  if (input.parent)
    lines.push(`**sub-agent** ${input.parent.path} of ${input.parent.rootWorkflowId} (approvals are decided there)`);
  const children = Object.values(state.children ?? {});
  if (children.length === 0) return lines;
  const running = children.filter((child) => child.endedAt === undefined);
  const shown = [...running, ...children.filter((child) => child.endedAt !== undefined).reverse()].slice(0, 6);
  const items = shown.map(
    (child) =>
      `${child.segment} ${child.status} (step ${child.childStep}, ${formatUsd(child.usage.costUsd)}): ${child.description}`,
  );
  const more = children.length > shown.length ? `; ${children.length - shown.length} more` : '';
  lines.push(`**sub-agents** ${running.length} running of ${children.length} — ${items.join('; ')}${more}`);
  return lines;
}

// A model missing from the price table is counted at $0: the cost says so rather than look exact.
function unpricedNote(state: AgentState): string {
  const unpriced = state.usage.unpricedModels;
  return unpriced.length > 0 ? ` (no price for ${unpriced.join(', ')})` : '';
}

export function publishedValues(
  state: AgentState,
  input: AgentInput,
  pending: readonly PendingApproval[],
): PublishedValues {
  const model = state.model ?? input.selection.model;
  return {
    status: shownStatus(state, pending),
    step: state.step,
    pendingApprovals: pending.length,
    costUsd: treeUsage(state).costUsd,
    ...(model ? { model } : {}),
  };
}
