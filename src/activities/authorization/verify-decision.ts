// Node: the local activities a signed run asks before it applies an approval, a rejection or a control message (the
// workflow holds no key).
import type { DecisionVerdict, VerifyDecisionRequest } from '../../protocol/approval.js';
import type { AuthorizationActivities } from '../../protocol/activities.js';
import { ACTIVITY } from '../../protocol/activity-names.js';
import { controlMessage, decisionMessage } from '../../protocol/run-authorization.js';
import type { VerifyControlRequest } from '../../protocol/run-control.js';
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

/** The same check for a control message (steering, interrupt, pause, resume) of one run. */
export function createVerifyControl(key: Uint8Array | undefined) {
  return async ({ workflowId, kind, request }: VerifyControlRequest): Promise<DecisionVerdict> => {
    if (!key) return { accepted: true };
    const signature = request.signature;
    if (!signature || typeof signature.issuedAt !== 'number') return { accepted: false, reason: 'it is not signed' };
    return macMatches(key, controlMessage(workflowId, kind, request, signature.issuedAt), signature.mac)
      ? { accepted: true }
      : { accepted: false, reason: `its signature is not the operator's for this ${kind} of this run` };
  };
}

/** The activities of this folder, by name. */
export function authorizationActivities(key: Uint8Array | undefined) {
  return {
    [ACTIVITY.verifyDecision]: createVerifyDecision(key),
    [ACTIVITY.verifyControl]: createVerifyControl(key),
  } satisfies AuthorizationActivities;
}
