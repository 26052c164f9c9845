// Workflow-safe: sub-agents as child workflows. A Task call starts a child of the same workflow (its id derived from
// the call, so a replay or a worker crash never starts a second one) in a scope the run's interrupts and cancellation
// reach, with a timer that cancels it at its time limit; the child reports its progress, spending and pending
// approvals to its parent by Signal, and the parent's approvals list and decide them.
import {
  ApplicationFailure,
  CancellationScope,
  ChildWorkflowCancellationType,
  ChildWorkflowFailure,
  ParentClosePolicy,
  TerminatedFailure,
  TimeoutFailure,
  executeChild,
  getExternalWorkflowHandle,
  isCancellation,
  proxyLocalActivities,
  setHandler,
  sleep,
} from '@temporalio/workflow';
import type { ApprovalDecision, PendingApproval } from '../protocol/approval.js';
import type { AuthorizationActivities } from '../protocol/activities.js';
import { ACTIVITY } from '../protocol/activity-names.js';
import type { AgentResult } from '../protocol/run-report.js';
import { ENDED_STATUSES } from '../protocol/run-report.js';
import { toolDecision } from '../protocol/run-messages.js';
import type { ChildReport } from '../protocol/sub-agents.js';
import { childReport } from '../protocol/sub-agents.js';
import type { ChildEnding } from '../core/sub-agents/child-result.js';
import type { ChildStart, TaskArguments } from '../core/sub-agents/child-start.js';
import {
  applyChildReport,
  childEnded,
  childOfApproval,
  childStarted,
  descendantApprovals,
  resultUsage,
} from '../core/sub-agents/children.js';
import { treeUsage } from '../core/sub-agents/ledger.js';
import type { AgentInput, AgentState } from '../core/state.js';
import type { DescendantApprovals } from './approvals.js';

/**
 * How long a sub-agent waits before telling its parent what it spent (status and approvals go at once): 2 s after its
 * start, then twice as long after each report, up to a minute. Each report is a Signal and a workflow task in the
 * parent's history, so a child's work adds about log2(its time) events to its parent rather than one every 2 s.
 */
export const USAGE_REPORT_INTERVAL_MS = { first: 2_000, longest: 60_000 };

const { [ACTIVITY.signChildRun]: signChildRun } = proxyLocalActivities<AuthorizationActivities>({
  startToCloseTimeout: '10 seconds',
  retry: { maximumAttempts: 3 },
  summary: 'signChildRun',
});

/**
 * Runs the child `start` of the Task call `callId` to its end. Throws only a cancellation (the run's interrupt or
 * cancel, which has reached the child by then); every other ending is the call's result.
 */
export async function runChild(
  state: AgentState,
  input: AgentInput,
  start: Extract<ChildStart, { start: true }>,
  call: { callId: string; args: TaskArguments },
  publish: () => void,
): Promise<ChildEnding> {
  childStarted(
    state,
    {
      segment: start.segment,
      workflowId: start.workflowId,
      callId: call.callId,
      description: call.args.description,
      profile: call.args.profile,
      ...(start.input.budgetUsd !== undefined ? { budgetUsd: start.input.budgetUsd } : {}),
      ...(start.input.maxTokens !== undefined ? { maxTokens: start.input.maxTokens } : {}),
    },
    Date.now(),
  );
  publish();
  const childScope = new CancellationScope();
  const timerScope = new CancellationScope();
  let timedOut = false;
  timerScope
    .run(() => sleep(start.timeoutMs))
    .then(
      () => {
        timedOut = true;
        childScope.cancel();
      },
      () => undefined,
    );
  let ending: ChildEnding;
  try {
    const authorization = input.authorization
      ? await signChildRun({ workflowId: start.workflowId, input: start.input })
      : null;
    const result = await childScope.run(() =>
      executeChild<(input: AgentInput) => Promise<AgentResult>>('agentWorkflow', {
        workflowId: start.workflowId,
        args: [authorization ? { ...start.input, authorization } : start.input],
        // Cancelling the parent (or interrupting its step) cancels the child, and the parent waits until the child's
        // own calls are cancelled; a parent that ends otherwise takes its children with it.
        cancellationType: ChildWorkflowCancellationType.WAIT_CANCELLATION_COMPLETED,
        parentClosePolicy: ParentClosePolicy.REQUEST_CANCEL,
        // The task column `list` shows for the child (a run's memo `task`).
        memo: { task: call.args.description },
        staticSummary: start.summary,
        staticDetails: `Sub-agent of ${start.input.parent!.parentWorkflowId} (Task call ${call.callId}).\n\n${call.args.prompt.slice(0, 2_000)}`,
      }),
    );
    ending = { kind: 'completed', result };
  } catch (error) {
    if (timedOut && isCancellation(error)) ending = { kind: 'timed_out', timeoutMs: start.timeoutMs };
    else if (isCancellation(error) && CancellationScope.current().consideredCancelled) {
      // The parent's interrupt or cancellation, which reached the child: it is the parent's to handle.
      childEnded(state, start.segment, { status: 'cancelled' }, Date.now());
      throw error;
    } else if (isCancellation(error))
      // Cancelled on its own (`durable-agent cancel` of the child): the Task call's error, the parent goes on.
      ending = { kind: 'failed', message: 'it was cancelled by an operator.', status: 'cancelled' };
    else ending = failedEnding(error);
  } finally {
    timerScope.cancel();
  }
  childEnded(state, start.segment, endingFacts(ending), Date.now());
  publish();
  return ending;
}

function endingFacts(ending: ChildEnding): Parameters<typeof childEnded>[2] {
  if (ending.kind === 'timed_out') return { status: 'timed_out' };
  const result = ending.result;
  const status = ending.kind === 'completed' ? 'completed' : (ending.status ?? result?.status ?? 'failed');
  return result ? { status, steps: result.steps, usage: resultUsage(result) } : { status };
}

/** A child's failure as its parent reads it: the run's own message and result when it failed as a run. */
function failedEnding(error: unknown): ChildEnding {
  const cause = error instanceof ChildWorkflowFailure ? error.cause : error;
  if (cause instanceof ApplicationFailure) {
    const result = cause.details?.[0] as AgentResult | undefined;
    return { kind: 'failed', message: cause.message, ...(result && typeof result === 'object' ? { result } : {}) };
  }
  if (cause instanceof TerminatedFailure) return { kind: 'failed', message: 'it was terminated by an operator.' };
  if (cause instanceof TimeoutFailure) return { kind: 'failed', message: 'it timed out on the server.' };
  return { kind: 'failed', message: cause instanceof Error ? cause.message : String(cause) };
}

/**
 * A parent's side: takes its children's reports (publishing what changed) and lists and forwards their approvals.
 */
export function installChildReports(state: AgentState, publish: () => void): DescendantApprovals {
  setHandler(
    childReport,
    (report: ChildReport) => {
      if (applyChildReport(state, report)) publish();
    },
    {
      description:
        "A sub-agent's progress, spending and pending approvals, sent by the sub-agent itself to its parent.",
    },
  );
  return {
    list: () => descendantApprovals(state),
    forward: (decision: ApprovalDecision) => {
      const child = childOfApproval(state, decision.tool_call_id);
      if (!child) return;
      // A signed child checks the operator's signature itself: a Signal does not say who sent it.
      void getExternalWorkflowHandle(child.workflowId)
        .signal(toolDecision, decision)
        .catch(() => undefined);
    },
  };
}

/**
 * A sub-agent's side: tells its parent what changed. A report is a Signal in both histories, so spending alone is
 * reported on the growing USAGE_REPORT_INTERVAL_MS (the child's result carries the final figures); a new status or a
 * change in what waits for approval goes at once, so an approval is never unseen at the root. What the parent already
 * knows is not sent: that a child it started is running with nothing pending, and an ending (its result says it).
 */
export function createChildReporter(
  state: AgentState,
  input: AgentInput,
): ((pending: PendingApproval[]) => void) | undefined {
  const link = input.parent;
  if (!link) return undefined;
  const segment = link.path.slice(link.path.lastIndexOf('/') + 1);
  let last = { status: 'running', pending: '[]', usage: '', step: state.step, at: Date.now() };
  let interval = USAGE_REPORT_INTERVAL_MS.first;
  return (pending) => {
    // An ending (and a hand-over to the next run of the chain) is the parent's to learn from the child's result.
    if (ENDED_STATUSES.has(state.status) || state.status === 'continued') return;
    const usage = treeUsage(state);
    const now = Date.now();
    const next = {
      status: state.status,
      pending: JSON.stringify(pending),
      usage: JSON.stringify(usage),
      step: state.step,
      at: now,
    };
    const urgent = last.status !== next.status || last.pending !== next.pending;
    const changed = urgent || last.usage !== next.usage || last.step !== next.step;
    if (!changed || (!urgent && now - last.at < interval)) return;
    if (!urgent) interval = Math.min(interval * 2, USAGE_REPORT_INTERVAL_MS.longest);
    last = next;
    state.reportSeq = (state.reportSeq ?? 0) + 1;
    const report: ChildReport = {
      segment,
      seq: state.reportSeq,
      status: state.status,
      step: state.step,
      usage,
      pending,
    };
    void getExternalWorkflowHandle(link.parentWorkflowId)
      .signal(childReport, report)
      .catch(() => undefined);
  };
}
