// Sandbox-safe: the shapes of a human approval (C.4 askPolicy "wait" / "prompt"), shared by the turn rules, the
// workflow's handlers and the CLI.
import { canonicalJson } from '../tools/registry.js';
import { contentKey } from '../protocol/content-key.js';
import type { DecisionSignature } from './authorization/proofs.js';

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

/** A call's identity in its run: step, position, tool and a hash of its validated arguments. */
export function callIdentity(step: number, index: number, tool: string, input: Record<string, unknown>): string {
  return `${step}/${index}/${tool}/${contentKey(canonicalJson(input)).slice('sha256:'.length, 'sha256:'.length + 16)}`;
}

/** How long a call waits for a decision when the run does not say; then it counts as rejected (C.4). */
export const DEFAULT_ASK_TIMEOUT_MS = 600_000;

/** The decision a wait ends with when nobody decided in time. */
export function timedOutDecision(callId: string, timeoutMs: number): ApprovalDecision {
  return { tool_call_id: callId, decision: 'reject', reason: `no decision within ${Math.round(timeoutMs / 1000)} s` };
}

const SUMMARY_CHARS = 200;

/** One line naming what waits and why, for the Web UI's timer and the current details: `approval: Bash rm -rf build — destructive`. */
export function approvalSummary(approval: PendingApproval): string {
  const what = (approval.command ?? approval.path ?? '').replace(/\s+/g, ' ').trim();
  const line = `approval: ${approval.tool}${what ? ` ${what}` : ''} — ${approval.level}`;
  return line.length > SUMMARY_CHARS ? `${line.slice(0, SUMMARY_CHARS - 1)}…` : line;
}
