// Workflow-safe: the run's metrics (docs/observability.md) as increments between two snapshots of its state, so the
// workflow emits what changed since it last published — steps, tokens and cost as the ledger counts them, breaker
// transitions, approvals asked and decided, and the run's ending — and nothing twice.
import type { PendingApproval } from '../../protocol/approval.js';
import { ENDED_STATUSES } from '../../protocol/run-report.js';
import type { AgentInput, AgentState } from '../state.js';

/** The metrics a run emits from its workflow (the activities emit call latencies themselves). */
export const RUN_METRICS = {
  steps: 'durable_agent_steps_total',
  runs: 'durable_agent_runs_total',
  tokens: 'durable_agent_model_tokens_total',
  costMicroUsd: 'durable_agent_model_cost_microusd_total',
  breakerTransitions: 'durable_agent_breaker_transitions_total',
  approvalsRequested: 'durable_agent_approvals_requested_total',
  approvalsDecided: 'durable_agent_approvals_decided_total',
  approvalWaitMs: 'durable_agent_approval_wait_ms',
} as const;

export type RunMetricName = (typeof RUN_METRICS)[keyof typeof RUN_METRICS];

/** One counter increment or histogram value. */
export interface MetricIncrement {
  name: RunMetricName;
  value: number;
  tags: Record<string, string>;
}

/** What the increments are computed from. */
export interface RunMetricSnapshot {
  step: number;
  promptTokens: number;
  completionTokens: number;
  /** Micro-USD, whole: counters count integers, and the ledger's sum stays exact to a millionth of a dollar. */
  costMicroUsd: number;
  status: AgentState['status'];
  breakers: Record<string, string>;
  /** Pending approvals by call id, with the workflow time each was asked. */
  approvals: Record<string, number>;
}

/** The run's state as the metrics see it. */
export function runMetricSnapshot(state: AgentState, pending: readonly PendingApproval[]): RunMetricSnapshot {
  const breakers: Record<string, string> = {};
  for (const [tool, breaker] of Object.entries(state.breakers)) breakers[tool] = breaker.state;
  const approvals: Record<string, number> = {};
  for (const approval of pending) approvals[approval.callId] = approval.requestedAt;
  return {
    step: state.step,
    promptTokens: state.usage.promptTokens,
    completionTokens: state.usage.completionTokens,
    costMicroUsd: Math.round(state.usage.costUsd * 1_000_000),
    status: state.status,
    breakers,
    approvals,
  };
}

/** A run that has not emitted anything yet. */
export function emptyRunMetricSnapshot(): RunMetricSnapshot {
  return {
    step: 0,
    promptTokens: 0,
    completionTokens: 0,
    costMicroUsd: 0,
    status: 'running',
    breakers: {},
    approvals: {},
  };
}

/**
 * What changed from `before` to `after`, tagged with the run's provider and model. `now` is workflow time: an approval
 * that left the pending list waited from its request until now.
 */
export function metricIncrements(
  before: RunMetricSnapshot,
  after: RunMetricSnapshot,
  input: Pick<AgentInput, 'selection'>,
  model: string | undefined,
  now: number,
): MetricIncrement[] {
  const call = { provider: input.selection.provider ?? 'default', model: model ?? 'default' };
  const out: MetricIncrement[] = [];
  const count = (name: RunMetricName, value: number, tags: Record<string, string>): void => {
    if (value > 0) out.push({ name, value, tags });
  };
  count(RUN_METRICS.steps, after.step - before.step, { model: call.model });
  count(RUN_METRICS.tokens, after.promptTokens - before.promptTokens, { ...call, kind: 'input' });
  count(RUN_METRICS.tokens, after.completionTokens - before.completionTokens, { ...call, kind: 'output' });
  count(RUN_METRICS.costMicroUsd, after.costMicroUsd - before.costMicroUsd, call);
  // A breaker is made closed on a tool's first call: only a change of state is a transition.
  for (const [tool, state] of Object.entries(after.breakers))
    if ((before.breakers[tool] ?? 'CLOSED') !== state)
      out.push({ name: RUN_METRICS.breakerTransitions, value: 1, tags: { tool, to: state.toLowerCase() } });
  for (const id of Object.keys(after.approvals))
    if (!(id in before.approvals)) out.push({ name: RUN_METRICS.approvalsRequested, value: 1, tags: {} });
  for (const [id, requestedAt] of Object.entries(before.approvals))
    if (!(id in after.approvals)) {
      out.push({ name: RUN_METRICS.approvalsDecided, value: 1, tags: {} });
      out.push({ name: RUN_METRICS.approvalWaitMs, value: Math.max(0, now - requestedAt), tags: {} });
    }
  if (ENDED_STATUSES.has(after.status) && !ENDED_STATUSES.has(before.status))
    out.push({ name: RUN_METRICS.runs, value: 1, tags: { status: after.status } });
  return out;
}
