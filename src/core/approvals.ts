// Workflow-safe: the rules of a human approval (docs/tools.md §4 askPolicy "wait" / "prompt"): what a decision is kept
// under, when a wait ends, and the one line that names what waits.
import { canonicalJson } from '../protocol/canonical-json.js';
import { contentKey } from '../protocol/content-key.js';
import type { ApprovalDecision, PendingApproval } from '../protocol/approval.js';

/** A call's identity in its run: step, position, tool and a hash of its validated arguments. */
export function callIdentity(step: number, index: number, tool: string, input: Record<string, unknown>): string {
  return `${step}/${index}/${tool}/${contentKey(canonicalJson(input)).slice('sha256:'.length, 'sha256:'.length + 16)}`;
}

/** How long a call waits for a decision when the run does not say; then it counts as rejected (§4). */
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
