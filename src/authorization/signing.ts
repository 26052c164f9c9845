// Node: HMAC-SHA256 signatures of the operator's key over the messages protocol/run-authorization defines.
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { ApprovalDecision, DecisionSubject } from '../protocol/approval.js';
import type { RunAuthorization } from '../protocol/run-authorization.js';
import { controlMessage, decisionMessage, inputDigest, runProofMessage } from '../protocol/run-authorization.js';
import type { ControlRequest } from '../protocol/run-control.js';

/** Hex HMAC-SHA256 of `message` under `key`. */
export function mac(key: Uint8Array, message: string): string {
  return createHmac('sha256', key).update(message, 'utf8').digest('hex');
}

/** Whether `claimed` is the MAC of `message` under `key` (compared in constant time). */
export function macMatches(key: Uint8Array, message: string, claimed: unknown): boolean {
  if (typeof claimed !== 'string' || !/^[0-9a-f]{64}$/.test(claimed)) return false;
  return timingSafeEqual(Buffer.from(mac(key, message), 'hex'), Buffer.from(claimed, 'hex'));
}

/** The proof the CLI puts in a run's input just before it starts the run. */
export function signRun(key: Uint8Array, workflowId: string, input: object, now = Date.now()): RunAuthorization {
  return { issuedAt: now, mac: mac(key, runProofMessage(workflowId, now, inputDigest(input))) };
}

/** `decision` signed for one pending call of one run. */
export function signDecision(
  key: Uint8Array,
  subject: DecisionSubject,
  decision: ApprovalDecision,
  now = Date.now(),
): ApprovalDecision {
  const { signature: _old, ...unsigned } = decision;
  return { ...unsigned, signature: { issuedAt: now, mac: mac(key, decisionMessage(subject, unsigned, now)) } };
}

/** `request` signed as a control message of `kind` for `workflowId`. */
export function signControl(
  key: Uint8Array,
  workflowId: string,
  kind: string,
  request: ControlRequest,
  now = Date.now(),
): ControlRequest {
  const { signature: _old, ...unsigned } = request;
  return { ...unsigned, signature: { issuedAt: now, mac: mac(key, controlMessage(workflowId, kind, unsigned, now)) } };
}
