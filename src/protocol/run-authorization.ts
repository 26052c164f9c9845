// Workflow-safe: what the operator's key signs, and the rules a signed run and a signed decision are checked by. The
// workflow digests its own input here (it has no key); the CLI signs and the worker verifies the same messages.
import type { ApprovalDecision, DecisionSubject } from './approval.js';
import { contentKey } from './content-key.js';
import type { ContentKey } from './content-key.js';
import { canonicalJson } from './canonical-json.js';

/** A run's proof as the CLI puts it in the workflow input: its start, signed with the operator's key. */
export interface RunAuthorization {
  /** Epoch ms when the CLI signed the start. */
  issuedAt: number;
  /** Hex HMAC-SHA256 of `runProofMessage`. */
  mac: string;
  /**
   * Set by the workflow when it continues as new: the first run's facts, which a continued run (whose input now holds
   * `resume`) cannot recompute. Honoured only in a run the server marks as a continuation of the same chain.
   */
  chain?: RunChain;
}

/** The first run of a chain, as that run's workflow saw it. */
export interface RunChain {
  /** The digest of the first run's input (without its authorization). */
  digest: ContentKey;
  firstRunId: string;
  /** Epoch ms of the chain's start, as the server recorded it. */
  startedAt: number;
}

/** What the workflow attaches to every activity it schedules (the `RUN_PROOF_HEADER` header). */
export interface RunProofHeader extends RunChain {
  workflowId: string;
  issuedAt: number;
  mac: string;
}

/** The activity header that carries a run's proof. */
export const RUN_PROOF_HEADER = 'durable-agent-run-proof';

/** The failure type of an activity refused because its run was not started by the operator. */
export const RUN_NOT_AUTHORIZED = 'RUN_NOT_AUTHORIZED';

/** The failure type of an approval or rejection refused because the operator did not sign it. */
export const DECISION_NOT_SIGNED = 'DECISION_NOT_SIGNED';

/**
 * How long after its proof was signed a chain may start (the CLI signs just before it starts the workflow), and how
 * far the server's clock may be behind the CLI's. A proof read from history is useless for a chain started later.
 */
export const RUN_PROOF_WINDOW_MS = 5 * 60_000;
export const RUN_PROOF_CLOCK_SKEW_MS = 30_000;

/** The digest a run's proof signs: its input, without the proof itself. */
export function inputDigest(input: object): ContentKey {
  const { authorization: _proof, ...signed } = input as { authorization?: unknown };
  return contentKey(canonicalJson(signed));
}

/** The bytes (as a string) the operator's key signs for a run's start. */
export function runProofMessage(workflowId: string, issuedAt: number, digest: string): string {
  return canonicalJson({ domain: 'durable-agent run v1', workflowId, issuedAt, digest });
}

/** Why a chain started at `startedAt` may not use a proof signed at `issuedAt`; undefined when it may. */
export function runProofWindowRefusal(issuedAt: number, startedAt: number): string | undefined {
  if (startedAt < issuedAt - RUN_PROOF_CLOCK_SKEW_MS) return 'the run started before its proof was signed';
  if (startedAt > issuedAt + RUN_PROOF_WINDOW_MS)
    return `the run started ${Math.round((startedAt - issuedAt) / 1000)} s after its proof was signed (a proof is good for ${RUN_PROOF_WINDOW_MS / 1000} s)`;
  return undefined;
}

/** The bytes (as a string) the operator's key signs for a decision. */
export function decisionMessage(
  subject: DecisionSubject,
  decision: Pick<ApprovalDecision, 'decision' | 'remember' | 'reason' | 'decided_by'>,
  issuedAt: number,
): string {
  return canonicalJson({
    domain: 'durable-agent decision v1',
    workflowId: subject.workflowId,
    callId: subject.callId,
    identity: subject.identity,
    decision: decision.decision,
    remember: decision.remember === true,
    reason: decision.reason ?? '',
    decided_by: decision.decided_by ?? '',
    issuedAt,
  });
}

/** The longest a signed control message stays good after it was signed (a captured one cannot be replayed later). */
export const CONTROL_SIGNATURE_WINDOW_MS = 10 * 60_000;

/** The bytes (as a string) the operator's key signs for a control message (protocol/run-control). */
export function controlMessage(
  workflowId: string,
  kind: string,
  request: { id: string; text?: string; sent_by?: string },
  issuedAt: number,
): string {
  return canonicalJson({
    domain: 'durable-agent control v1',
    workflowId,
    kind,
    id: request.id,
    text: request.text ?? '',
    sent_by: request.sent_by ?? '',
    issuedAt,
  });
}

/** The failure type of a control message a signed run refused for want of the operator's signature. */
export const CONTROL_NOT_SIGNED = 'CONTROL_NOT_SIGNED';
