// Workflow-safe: the children a run started, as it knows them: what each reported last (status, step, spending,
// pending approvals) and how each ended. The root's cost and pending approvals are read from here.
import type { PendingApproval } from '../../protocol/approval.js';
import type { ChildRecord, ChildReport } from '../../protocol/sub-agents.js';
import type { AgentResult, RunStatus, UsageLedger } from '../../protocol/run-report.js';
import type { AgentState } from '../state.js';
import { emptyUsage } from '../state.js';

/** Records a child the run is starting. */
export function childStarted(
  state: AgentState,
  child: Pick<ChildRecord, 'segment' | 'workflowId' | 'callId' | 'description' | 'profile' | 'budgetUsd' | 'maxTokens'>,
  now: number,
): void {
  state.children = {
    ...state.children,
    [child.segment]: {
      ...child,
      step: state.step,
      status: 'running',
      childStep: 0,
      usage: emptyUsage(),
      pending: [],
      seq: 0,
      startedAt: now,
    },
  };
  state.childrenStarted = (state.childrenStarted ?? 0) + 1;
}

/**
 * Applies a child's report; false when it changes nothing (unknown child, older than the last, or one that ended, whose
 * result is final). Approvals a child reports are kept only while it runs.
 */
export function applyChildReport(state: AgentState, report: ChildReport): boolean {
  // A Signal anyone with access to the server can send: what does not have the shape of a report changes nothing.
  if (!isReport(report)) return false;
  const child = state.children?.[report.segment];
  if (!child || child.endedAt !== undefined || report.seq <= child.seq) return false;
  child.seq = report.seq;
  child.status = report.status;
  child.childStep = report.step;
  child.usage = report.usage;
  child.pending = report.pending;
  return true;
}

const LEDGER_NUMBERS = [
  'promptTokens',
  'completionTokens',
  'cachedTokens',
  'totalTokens',
  'modelCalls',
  'costUsd',
  'lastPromptTokens',
  'retriedCalls',
  'schemaTokens',
] as const;

function isReport(report: unknown): report is ChildReport {
  if (typeof report !== 'object' || report === null) return false;
  const { segment, seq, status, step, usage, pending } = report as Partial<ChildReport>;
  return (
    typeof segment === 'string' &&
    Number.isSafeInteger(seq) &&
    typeof status === 'string' &&
    Number.isSafeInteger(step) &&
    typeof usage === 'object' &&
    usage !== null &&
    LEDGER_NUMBERS.every((key) => Number.isFinite(usage[key]) && usage[key] >= 0) &&
    Array.isArray(usage.unpricedModels) &&
    usage.unpricedModels.every((model) => typeof model === 'string') &&
    Array.isArray(pending) &&
    pending.every(
      (item) =>
        typeof item === 'object' &&
        item !== null &&
        typeof item.callId === 'string' &&
        typeof item.identity === 'string' &&
        Number.isFinite(item.requestedAt),
    )
  );
}

/** The child ended: its result's usage (its whole tree's) is final, and nothing of it waits any more. */
export function childEnded(
  state: AgentState,
  segment: string,
  ending: { status: RunStatus; steps?: number; usage?: UsageLedger },
  now: number,
): void {
  const child = state.children?.[segment];
  if (!child) return;
  child.status = ending.status;
  if (ending.steps !== undefined) child.childStep = ending.steps;
  // A child that ended without a result (cancelled, timed out) keeps what it reported last.
  if (ending.usage) child.usage = ending.usage;
  child.pending = [];
  child.endedAt = now;
}

/** A child result's usage with its descendants' (the `totalUsage` it reports when it had children). */
export function resultUsage(result: Pick<AgentResult, 'usage' | 'totalUsage'>): UsageLedger {
  return result.totalUsage ?? result.usage;
}

/** What the run's children and their descendants wait for, oldest first. */
export function descendantApprovals(state: Pick<AgentState, 'children'>): PendingApproval[] {
  return Object.values(state.children ?? {})
    .flatMap((child) => child.pending)
    .sort((a, b) => a.requestedAt - b.requestedAt);
}

/** The running child whose tree holds the pending approval `callId`. */
export function childOfApproval(state: Pick<AgentState, 'children'>, callId: string): ChildRecord | undefined {
  return Object.values(state.children ?? {}).find(
    (child) => child.endedAt === undefined && child.pending.some((pending) => pending.callId === callId),
  );
}

/** Children still running. */
export function runningChildren(state: Pick<AgentState, 'children'>): ChildRecord[] {
  return Object.values(state.children ?? {}).filter((child) => child.endedAt === undefined);
}
