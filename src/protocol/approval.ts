// Workflow-safe: a human decision on a call that asked (docs/tools.md §4 askPolicy "wait" / "prompt"), as it crosses
// the boundary: what waits (the workflow's state, the CLI's list), the decision an operator sends (Update or Signal)
// and its signature.

/** A call (or a budget extension) waiting for a human decision. */
export interface PendingApproval {
  /** What the operator names the call by: the model's call id (or `budget-step-N`). */
  callId: string;
  /**
   * What a decision is kept under: the call's place in the run and what it does (`callIdentity`). A model that reuses
   * an id for another command is asked again; the id alone never carries an approval over.
   */
  identity: string;
  tool: string;
  level: string;
  reason: string;
  command?: string;
  path?: string;
  /** The network_write approval key ("npm install", "curl example.com"); `--remember` approves it for the task. */
  key?: string;
  /** Workflow time (ms) when the approval was requested. */
  requestedAt: number;
}

/** A decision on one pending call, from the CLI (Update) or the Web UI / `temporal workflow signal` (Signal). */
export interface ApprovalDecision {
  tool_call_id: string;
  decision: 'approve' | 'reject';
  /** Approve the call's approval key for the rest of the task (network_write only). */
  remember?: boolean;
  reason?: string;
  /** Who decided (`user@host` from the CLI); absent from a bare Signal (the Web UI). */
  decided_by?: string;
  /** The operator's signature (the CLI with the embedded server's key): a signed run takes no decision without it. */
  signature?: DecisionSignature;
}

/** What the Update returns once the decision is recorded. */
export interface ApprovalOutcome {
  tool_call_id: string;
  decision: 'approve' | 'reject';
  rememberedKey?: string;
}

/** A decision's signature, as the CLI adds it to an approval or a rejection. */
export interface DecisionSignature {
  /** Epoch ms when the CLI signed it. */
  issuedAt: number;
  /** Hex HMAC-SHA256 of `decisionMessage`. */
  mac: string;
}

/** What a signed decision is bound to: one run, one pending call (by its identity: what it does), one answer. */
export interface DecisionSubject {
  workflowId: string;
  callId: string;
  /** The pending call's identity (step, position, tool, arguments' hash): a decision never carries to another call. */
  identity: string;
}

/** What the workflow asks: the decision as received, and the pending call it names. */
export interface VerifyDecisionRequest {
  subject: DecisionSubject;
  decision: ApprovalDecision;
}

/** `accepted`, or why not. */
export type DecisionVerdict = { accepted: true } | { accepted: false; reason: string };
