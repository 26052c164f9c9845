// Node: the local activity a signed run asks before it applies an approval or a rejection (the workflow holds no key).
import type { ApprovalDecision } from '../../core/approvals.js';
import type { DecisionSubject } from '../../core/authorization/proofs.js';
import { decisionMessage } from '../../core/authorization/proofs.js';
import { macMatches } from '../../authorization/signing.js';

/** What the workflow asks: the decision as received, and the pending call it names. */
export interface VerifyDecisionRequest {
  subject: DecisionSubject;
  decision: ApprovalDecision;
}

/** `accepted`, or why not. */
export type DecisionVerdict = { accepted: true } | { accepted: false; reason: string };

/** The activity of a worker holding `key`; without a key every decision stands (Temporal authorizes its senders). */
export function createVerifyDecision(key: Uint8Array | undefined) {
  return async ({ subject, decision }: VerifyDecisionRequest): Promise<DecisionVerdict> => {
    if (!key) return { accepted: true };
    const signature = decision.signature;
    if (!signature || typeof signature.issuedAt !== 'number') return { accepted: false, reason: 'it is not signed' };
    return macMatches(key, decisionMessage(subject, decision, signature.issuedAt), signature.mac)
      ? { accepted: true }
      : { accepted: false, reason: "its signature is not the operator's for this call" };
  };
}

/** The activities of this folder, by name. */
export function authorizationActivities(key: Uint8Array | undefined) {
  return { verifyDecision: createVerifyDecision(key) };
}

/** Their interface, for the workflow's proxy (type-only import there). */
export type AuthorizationActivities = ReturnType<typeof authorizationActivities>;
