// Workflow-safe: human approvals (docs/tools.md §4 askPolicy "wait" / "prompt"). A pending call waits for an Update
// (the CLI, which gets an answer) or a Signal of the same shape (the Web UI, `temporal workflow signal`), or times out
// to reject. A run the operator signed takes only decisions the operator signed: the others are refused and recorded.
import { ApplicationFailure, condition, setHandler, workflowInfo } from '@temporalio/workflow';
import type { ApprovalDecision, ApprovalOutcome, PendingApproval } from '../protocol/approval.js';
import { approvalSummary, timedOutDecision } from '../core/approvals.js';
import type { DecisionSubject } from '../protocol/approval.js';
import { DECISION_NOT_SIGNED } from '../protocol/run-authorization.js';
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
 * The approvals of one workflow run: what is pending (by the call id the operator names), and what was decided (by the
 * call's identity, so a decision never carries over to another call that reuses the id).
 */
export class ApprovalBook {
  private readonly pending = new Map<string, PendingApproval>();
  private readonly decisions = new Map<string, ApprovalDecision>();

  /** `onChange` runs when a call starts waiting, so what the run publishes never lags behind it; the caller of `request` publishes once it has applied the decision. */
  constructor(
    private readonly onChange: () => void = () => {},
    private readonly guard?: DecisionGuard,
  ) {}

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

  /** Calls waiting for a decision, oldest first. */
  list(): PendingApproval[] {
    return [...this.pending.values()];
  }

  /** Waits for a decision on `approval`; a timeout counts as a rejection (§4). */
  async request(approval: PendingApproval, timeoutMs: number): Promise<ApprovalDecision> {
    this.pending.set(approval.callId, approval);
    this.onChange();
    try {
      // The timer's summary is what the Web UI shows for the wait: what is pending and why.
      const decided = await condition(() => this.decisions.has(approval.identity), timeoutMs, {
        summary: approvalSummary(approval),
      });
      return decided ? this.decisions.get(approval.identity)! : timedOutDecision(approval.callId, timeoutMs);
    } finally {
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
    const pending = this.pending.get(decision.tool_call_id)!;
    const subject = { workflowId: workflowInfo().workflowId, callId: pending.callId, identity: pending.identity };
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

  private check(decision: ApprovalDecision): void {
    if (decision?.decision !== 'approve' && decision?.decision !== 'reject')
      throw new Error('decision must be "approve" or "reject"');
    const pending = this.pending.get(decision.tool_call_id);
    if (pending && this.decisions.has(pending.identity))
      throw new Error(`Call ${decision.tool_call_id} was already decided.`);
    if (!pending) {
      const waiting = [...this.pending.keys()];
      const decided = [...this.decisions.values()].some((earlier) => earlier.tool_call_id === decision.tool_call_id);
      throw new Error(
        decided
          ? `Call ${decision.tool_call_id} was already decided.`
          : `No pending approval for call ${decision.tool_call_id}.${waiting.length ? ` Pending: ${waiting.join(', ')}.` : ' Nothing is pending.'}`,
      );
    }
  }

  private decide(decision: ApprovalDecision): ApprovalOutcome {
    const pending = this.pending.get(decision.tool_call_id)!;
    this.decisions.set(pending.identity, decision);
    const key = pending.key;
    return {
      tool_call_id: decision.tool_call_id,
      decision: decision.decision,
      ...(decision.decision === 'approve' && decision.remember && key ? { rememberedKey: key } : {}),
    };
  }
}
