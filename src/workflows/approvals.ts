// Sandboxed: human approvals (C.4 askPolicy "wait" / "prompt"). A pending call waits for an Update (the CLI, which
// gets an answer) or a Signal of the same shape (the Web UI, `temporal workflow signal`), or times out to reject.
import { condition, setHandler } from '@temporalio/workflow';
import type { ApprovalDecision, ApprovalOutcome, PendingApproval } from '../core/approvals.js';
import { approvalSummary, timedOutDecision } from '../core/approvals.js';
import { approveToolCall, toolDecision } from './messages.js';

/**
 * The approvals of one workflow run: what is pending (by the call id the operator names), and what was decided (by the
 * call's identity, so a decision never carries over to another call that reuses the id).
 */
export class ApprovalBook {
  private readonly pending = new Map<string, PendingApproval>();
  private readonly decisions = new Map<string, ApprovalDecision>();

  /** `onChange` runs whenever the pending list changes, so what the run publishes never lags behind it. */
  constructor(private readonly onChange: () => void = () => {}) {}

  /** Registers the Update and Signal handlers; call once, at the start of the workflow. */
  install(): void {
    setHandler(approveToolCall, (decision: ApprovalDecision) => this.decide(decision), {
      description:
        'Approve or reject a pending tool call: {"tool_call_id", "decision": "approve" | "reject", "reason"?, "remember"?}. Refused when nothing by that id is pending.',
      validator: (decision: ApprovalDecision) => {
        this.check(decision);
      },
    });
    setHandler(
      toolDecision,
      (decision: ApprovalDecision) => {
        try {
          this.check(decision);
          this.decide(decision);
        } catch {
          // A Signal cannot be answered: one that names no pending call (or a decided one) changes nothing.
        }
      },
      {
        description:
          'The same decision as a Signal (the Web UI, temporal workflow signal): {"tool_call_id", "decision", "reason"?}. One naming no pending call is ignored.',
      },
    );
  }

  /** Calls waiting for a decision, oldest first. */
  list(): PendingApproval[] {
    return [...this.pending.values()];
  }

  /** Waits for a decision on `approval`; a timeout counts as a rejection (C.4). */
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
      this.pending.delete(approval.callId);
      this.onChange();
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
