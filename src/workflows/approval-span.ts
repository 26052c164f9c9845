// Workflow: an approval as a span of the run's trace, from the request to the decision, with who decided and how long
// it waited. It is made with the tracer Temporal's workflow interceptors register in the workflow (ids from the
// workflow's seeded randomness, times in workflow time), so a replay makes the same span and it is exported once.
// Names only: the command or path that waits is in the Web UI and history, never in the span.
import { trace } from '@opentelemetry/api';
import type { ApprovalDecision, PendingApproval } from '../protocol/approval.js';

/** The open span of one approval. */
export interface ApprovalSpan {
  decided(decision: ApprovalDecision, timedOut: boolean): void;
  /** Ends a span left undecided (the run was cancelled while it waited). */
  close(): void;
}

/** Opens the span of `approval`. */
export function startApprovalSpan(approval: PendingApproval): ApprovalSpan {
  const span = trace.getTracer('durable-agent').startSpan(`approval ${approval.tool}`, {
    startTime: approval.requestedAt,
    attributes: {
      'gen_ai.tool.name': approval.tool,
      'gen_ai.tool.call.id': approval.callId,
      'durable_agent.tool.risk_level': approval.level,
    },
  });
  let ended = false;
  const end = (attributes: Record<string, string | number>): void => {
    if (ended) return;
    ended = true;
    span.setAttributes({
      'durable_agent.approval.wait_ms': Math.max(0, Date.now() - approval.requestedAt),
      ...attributes,
    });
    span.end();
  };
  return {
    decided: (decision, timedOut) =>
      end({
        'durable_agent.approval.decision': timedOut ? 'timed_out' : decision.decision,
        ...(decision.decided_by ? { 'durable_agent.approval.decided_by': decision.decided_by } : {}),
      }),
    close: () => end({ 'durable_agent.approval.decision': 'none' }),
  };
}
