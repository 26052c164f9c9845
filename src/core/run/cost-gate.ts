// Workflow-safe: the cost gate before a step. Would the next model call push the task over its cost limits (USD,
// tokens; the `--budget-usd` and `--max-tokens` the input calls its budget)? Then an operator is asked (an approval
// extends the limits by their original amounts) or the run stops, before the money is spent.
import { ACTIVITY } from '../../protocol/activity-names.js';
import type { PendingApproval } from '../../protocol/approval.js';
import { DEFAULT_ASK_TIMEOUT_MS } from '../approvals.js';
import { estimateNextCall, formatUsd, wouldExceedCostLimit } from '../pricing.js';
import type { AgentInput, AgentState } from '../state.js';
import { addProgress } from '../state.js';
import { priceTable } from './steps.js';
import { treeUsage } from '../sub-agents/ledger.js';

/** What the gate decided: go on, stop with a message, or ask an operator first. */
export type CostGate =
  | { action: 'continue' }
  | { action: 'stop'; message: string }
  | { action: 'ask'; request: PendingApproval; timeoutMs: number; message: string };

/** The budget a task starts with: the run's own limits, if any. */
export function initialCostLimits(input: AgentInput): AgentState['budget'] {
  return {
    ...(input.budgetUsd !== undefined ? { budgetUsd: input.budgetUsd } : {}),
    ...(input.maxTokens !== undefined ? { maxTokens: input.maxTokens } : {}),
  };
}

/** The run has a budget to check at all (a run without one awaits nothing for it). */
export function hasCostLimit(state: AgentState): boolean {
  return state.budget.budgetUsd !== undefined || state.budget.maxTokens !== undefined;
}

/** Checks the next call's estimated cost against the budget in force. */
export function costGate(state: AgentState, input: AgentInput, now: number): CostGate {
  if (!hasCostLimit(state)) return { action: 'continue' };
  const next = estimateNextCall(state.usage, {
    growthTokens: state.usage.modelCalls === 0 ? state.transcript.tokens + 2_000 : state.transcript.tailTokens,
    model: state.model ?? input.selection.model ?? 'unknown',
    table: priceTable(input),
  });
  // What the run's sub-agents spent counts: their budgets are shares of this one.
  const check = wouldExceedCostLimit(treeUsage(state), next, state.budget);
  if (!check.exceeded) return { action: 'continue' };
  const stop = `Stopped before step ${state.step + 1}: ${check.message}`;
  if (input.onBudget === 'stop' || input.askPolicy === 'deny') return { action: 'stop', message: stop };
  if (input.askPolicy === 'approve') {
    extendCostLimits(state, input);
    return { action: 'continue' };
  }
  state.status = 'waiting_approval';
  return {
    action: 'ask',
    request: {
      callId: `budget-step-${state.step + 1}`,
      identity: `budget-step-${state.step + 1}`,
      tool: ACTIVITY.callModel,
      level: 'budget',
      reason: check.message,
      requestedAt: now,
    },
    timeoutMs: input.askTimeoutMs ?? DEFAULT_ASK_TIMEOUT_MS,
    message: `${stop} (not approved)`,
  };
}

/** The operator's answer to a budget question: an approval extends the budget, anything else stops the run. */
export function onCostDecision(
  state: AgentState,
  input: AgentInput,
  approved: boolean,
  gate: Extract<CostGate, { action: 'ask' }>,
): CostGate {
  state.status = 'running';
  if (!approved) return { action: 'stop', message: gate.message };
  extendCostLimits(state, input);
  return { action: 'continue' };
}

function extendCostLimits(state: AgentState, input: AgentInput): void {
  state.budget = {
    ...(state.budget.budgetUsd !== undefined ? { budgetUsd: state.budget.budgetUsd + (input.budgetUsd ?? 0) } : {}),
    ...(state.budget.maxTokens !== undefined ? { maxTokens: state.budget.maxTokens + (input.maxTokens ?? 0) } : {}),
  };
  addProgress(state, { kind: 'step', step: state.step, text: `budget extended to ${costLimitsText(state)}` });
}

function costLimitsText(state: AgentState): string {
  const parts = [];
  if (state.budget.budgetUsd !== undefined) parts.push(formatUsd(state.budget.budgetUsd));
  if (state.budget.maxTokens !== undefined) parts.push(`${state.budget.maxTokens} tokens`);
  return parts.join(' / ');
}
