// Workflow-safe: the decision guard of a run its operator signed: the worker's verdict on each decision's signature, and
// a refusal recorded where the operator looks (progress lines of `run`, `watch` and `status`, the trace).
import { ActivityFailure } from '@temporalio/workflow';
import type { ApprovalDecision, PendingApproval } from '../protocol/approval.js';
import type { AgentState } from '../core/state.js';
import { addEvent, addProgress } from '../core/state.js';
import { verifyDecision } from './activities.js';
import type { DecisionChannel, DecisionGuard } from './approvals.js';

/** The trace event of a refused decision; `status` lists them (its data's `text`). */
export const DECISION_REFUSED_EVENT = 'decision_refused';

/** The refusals recorded in `state`, oldest first, as the operator reads them. */
export function refusedDecisions(state: AgentState): string[] {
  return state.events.filter((event) => event.type === DECISION_REFUSED_EVENT).map((event) => String(event.data.text));
}

/** The guard of a signed run; `publish` shows the refusal at once. */
export function signedDecisionGuard(state: AgentState, publish: () => void): DecisionGuard {
  return {
    verify: async (subject, decision) => {
      try {
        const verdict = await verifyDecision({ subject, decision });
        return verdict.accepted ? undefined : verdict.reason;
      } catch (error) {
        if (!(error instanceof ActivityFailure)) throw error;
        return `the worker could not verify it (${error.cause?.message ?? error.message})`;
      }
    },
    refused: (pending, decision, channel, reason) => {
      const text = refusalText(pending, decision, channel, reason);
      addProgress(state, { kind: 'approval', step: state.step, text, tool: pending.tool, status: 'refused' });
      addEvent(state, DECISION_REFUSED_EVENT, Date.now(), {
        text,
        tool_call_id: pending.callId,
        decision: decision.decision,
        channel,
        reason,
        ...(decision.decided_by !== undefined ? { claimed_by: String(decision.decided_by) } : {}),
      });
      publish();
    },
  };
}

/** `refused an unsigned approval of call_x (Signal, claiming to be web-ui): it is not signed`. */
function refusalText(
  pending: PendingApproval,
  decision: ApprovalDecision,
  channel: DecisionChannel,
  reason: string,
): string {
  const what = decision.decision === 'approve' ? 'approval' : 'rejection';
  const signed = decision.signature ? 'a badly signed' : 'an unsigned';
  const claimed = decision.decided_by ? `, claiming to be ${String(decision.decided_by)}` : '';
  return `refused ${signed} ${what} of ${pending.callId} (${channel}${claimed}): ${reason}; the call stays pending`;
}
