// Node: the local activity a signed run asks before it applies an approval or a rejection (the workflow holds no key).
import type { DecisionVerdict, VerifyDecisionRequest } from '../../protocol/approval.js';
import type { AuthorizationActivities } from '../../protocol/activities.js';
import { ACTIVITY } from '../../protocol/activity-names.js';
import { decisionMessage } from '../../protocol/run-authorization.js';
import { macMatches } from '../../authorization/signing.js';

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
  return { [ACTIVITY.verifyDecision]: createVerifyDecision(key) } satisfies AuthorizationActivities;
}
