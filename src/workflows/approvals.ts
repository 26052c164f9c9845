// Workflow-safe: human approvals (docs/tools.md §4 askPolicy "wait" / "prompt"). A pending call waits for an Update
// (the CLI, which gets an answer) or a Signal of the same shape (the Web UI, `temporal workflow signal`), or times out
// to reject. A run the operator signed takes only decisions the operator signed: the others are refused and recorded.
import { ApplicationFailure, condition, setHandler, workflowInfo } from '@temporalio/workflow';
import type { ApprovalDecision, ApprovalOutcome, PendingApproval } from '../protocol/approval.js';
import { approvalSummary, timedOutDecision } from '../core/approvals.js';
import type { DecisionSubject } from '../protocol/approval.js';
import { DECISION_NOT_SIGNED } from '../protocol/run-authorization.js';
import { startApprovalSpan } from './approval-span.js';
import { approveToolCall, toolDecision } from '../protocol/run-messages.js';

/** How a decision reached the run. */
export type DecisionChannel = 'Update' | 'Signal';

/** A signed run's check of every decision before it is applied (the workflow has no key: an activity verifies). */
export interface DecisionGuard {
  /** Whether the operator signed `decision` for `subject`; a reason when not. */
  verify(subject: DecisionSubject, decision: ApprovalDecision): Promise<string | undefined>;
  /** Records a refusal where the operator sees it (progress, trace). */
  refused(pending: PendingApproval, decision: ApprovalDecision, channel: DecisionChannel, reason: string): void;
}

/**
 * What the run's sub-agents wait for (workflows/sub-agent): listed with the run's own, and decided here by forwarding
 * the operator's decision to the child whose tree holds the call.
 */
export interface DescendantApprovals {
  list(): PendingApproval[];
  forward(decision: ApprovalDecision): void;
}

/** Where a sub-agent's approvals are decided: at its root, by ids prefixed with its path (`task-3-0/call_1`). */
export interface ApprovalScope {
  /** Prepended to the ids of the run's own pending calls. */
  idPrefix: string;
  /** The workflow a signed decision names: the root's, where the operator decided. */
  subjectWorkflowId: string;
}

/**
 * The approvals of one workflow run: what is pending (by the call id the operator names), and what was decided (by the
 * call's identity, so a decision never carries over to another call that reuses the id).
 */
export class ApprovalBook {
  private readonly pending = new Map<string, PendingApproval>();
  private readonly decisions = new Map<string, ApprovalDecision>();
  /** Identities of descendants' calls this run passed a decision on to (until the child reports them gone). */
  private readonly forwarded = new Set<string>();
  private descendants?: DescendantApprovals;

  /** `onChange` runs when a call starts waiting, so what the run publishes never lags behind it; the caller of `request` publishes once it has applied the decision. */
  constructor(
    private readonly onChange: () => void = () => {},
    private readonly guard?: DecisionGuard,
    private readonly scope?: ApprovalScope,
  ) {}

  /** Lists and decides the sub-agents' approvals with the run's own. */
  attachDescendants(descendants: DescendantApprovals): void {
    this.descendants = descendants;
  }

  /** Registers the Update and Signal handlers; call once, at the start of the workflow. */
  install(): void {
    // A run that is not signed decides at once, as it always has; a signed one waits for the verdict first.
    setHandler(
      approveToolCall,
      (decision: ApprovalDecision) =>
        this.guard ? this.authorize(decision, 'Update').then(() => this.decide(decision)) : this.decide(decision),
      {
        description:
          'Approve or reject a pending tool call: {"tool_call_id", "decision": "approve" | "reject", "reason"?, "remember"?, "signature"?}. Refused when nothing by that id is pending, and in a run its operator signed, unless the operator\'s CLI signed the decision.',
        validator: (decision: ApprovalDecision) => {
          this.check(decision);
        },
      },
    );
    setHandler(
      toolDecision,
      (decision: ApprovalDecision) => {
        // A Signal cannot be answered: one that names no pending call (or a decided one) changes nothing, and a
        // refused one is recorded by the guard.
        try {
          this.check(decision);
        } catch {
          return;
        }
        if (!this.guard) return void this.decide(decision);
        return this.authorize(decision, 'Signal').then(
          () => void this.decide(decision),
          () => undefined,
        );
      },
      {
        description:
          'The same decision as a Signal (the Web UI, temporal workflow signal): {"tool_call_id", "decision", "reason"?}. One naming no pending call is ignored; in a run its operator signed, an unsigned one is refused and recorded.',
      },
    );
  }

  /** Calls waiting for a decision, the run's own first (oldest first), then its sub-agents'. */
  list(): PendingApproval[] {
    const own = [...this.pending.values()];
    const descendants = this.descendants?.list().filter((item) => !this.forwarded.has(item.identity)) ?? [];
    return descendants.length ? [...own, ...descendants] : own;
  }

  /** Waits for a decision on `request`; a timeout counts as a rejection (§4). */
  async request(request: PendingApproval, timeoutMs: number): Promise<ApprovalDecision> {
    // Both ids carry the run's place in the tree: two sub-agents' calls are alike at the same step (same call id,
    // command and place, or the same `budget-step-N`), and the root keeps what it forwarded by identity.
    const approval = this.scope
      ? {
          ...request,
          callId: `${this.scope.idPrefix}${request.callId}`,
          identity: `${this.scope.idPrefix}${request.identity}`,
        }
      : request;
    this.pending.set(approval.callId, approval);
    this.onChange();
    const traced = startApprovalSpan(approval);
    try {
      // The timer's summary is what the Web UI shows for the wait: what is pending and why.
      const decided = await condition(() => this.decisions.has(approval.identity), timeoutMs, {
        summary: approvalSummary(approval),
      });
      const decision = decided ? this.decisions.get(approval.identity)! : timedOutDecision(approval.callId, timeoutMs);
      traced.decided(decision, !decided);
      return decision;
    } finally {
      traced.close();
      // No change is reported here: the caller applies the decision (the run's status with it) and publishes both at
      // once, so the Web UI never shows a run waiting for approval with none pending.
      this.pending.delete(approval.callId);
    }
  }

  /**
   * Throws (an ApplicationFailure, which refuses an Update) unless the operator signed `decision` for this very call.
   * The call is checked again after the wait for the verdict, in which it may have been decided or timed out.
   */
  private async authorize(decision: ApprovalDecision, channel: DecisionChannel): Promise<void> {
    const guard = this.guard!;
    const pending = this.find(decision.tool_call_id)!;
    const subject = {
      workflowId: this.scope?.subjectWorkflowId ?? workflowInfo().workflowId,
      callId: pending.callId,
      identity: pending.identity,
    };
    const refusal = decision.signature ? await guard.verify(subject, decision) : 'it is not signed';
    if (refusal !== undefined) {
      guard.refused(pending, decision, channel, refusal);
      throw ApplicationFailure.create({
        type: DECISION_NOT_SIGNED,
        nonRetryable: true,
        message: `Refused: ${refusal}. This run takes decisions only from its operator's durable-agent CLI (approve, deny, or the prompt of run --ask prompt); the call stays pending.`,
      });
    }
    try {
      this.check(decision);
    } catch (error) {
      throw ApplicationFailure.create({
        type: 'DecisionRefused',
        nonRetryable: true,
        message: String((error as Error).message),
      });
    }
  }

  /** The pending call `callId` names: the run's own, or one of its sub-agents'. */
  private find(callId: string): PendingApproval | undefined {
    return this.pending.get(callId) ?? this.descendants?.list().find((item) => item.callId === callId);
  }

  private check(decision: ApprovalDecision): void {
    if (decision?.decision !== 'approve' && decision?.decision !== 'reject')
      throw new Error('decision must be "approve" or "reject"');
    const pending = this.find(decision.tool_call_id);
    if (pending && (this.decisions.has(pending.identity) || this.forwarded.has(pending.identity)))
      throw new Error(`Call ${decision.tool_call_id} was already decided.`);
    if (!pending) {
      const waiting = this.list().map((item) => item.callId);
      const decided = [...this.decisions.values()].some((earlier) => earlier.tool_call_id === decision.tool_call_id);
      throw new Error(
        decided
          ? `Call ${decision.tool_call_id} was already decided.`
          : `No pending approval for call ${decision.tool_call_id}.${waiting.length ? ` Pending: ${waiting.join(', ')}.` : ' Nothing is pending.'}`,
      );
    }
  }

  private decide(decision: ApprovalDecision): ApprovalOutcome {
    const own = this.pending.get(decision.tool_call_id);
    const pending = own ?? this.find(decision.tool_call_id)!;
    if (own) this.decisions.set(pending.identity, decision);
    else {
      // A sub-agent's call: its run applies the decision (and, if signed, checks the signature itself).
      this.forwarded.add(pending.identity);
      this.descendants!.forward(decision);
      this.onChange();
    }
    const key = pending.key;
    return {
      tool_call_id: decision.tool_call_id,
      decision: decision.decision,
      ...(decision.decision === 'approve' && decision.remember && key ? { rememberedKey: key } : {}),
    };
  }
}
