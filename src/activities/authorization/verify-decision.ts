// Node: the local activities a signed run asks before it applies an approval, a rejection or a control message, and
// to sign a sub-agent's start (the workflow holds no key).
import type { DecisionVerdict, VerifyDecisionRequest } from '../../protocol/approval.js';
import type { AuthorizationActivities } from '../../protocol/activities.js';
import { ACTIVITY } from '../../protocol/activity-names.js';
import { controlMessage, decisionMessage } from '../../protocol/run-authorization.js';
import type { VerifyControlRequest } from '../../protocol/run-control.js';
import { macMatches, signRun } from '../../authorization/signing.js';
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type { RunAuthorization } from '../../protocol/run-authorization.js';
import { RUN_NOT_AUTHORIZED } from '../../protocol/run-authorization.js';
import type { SignChildRunRequest } from '../../protocol/sub-agents.js';

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

/**
 * Signs a sub-agent's start for a run whose own proof this worker checked before the activity ran: only for a child of
 * that very run (its id is the run's id and one more segment), so a run cannot get any other workflow signed.
 */
export function createSignChildRun(key: Uint8Array | undefined) {
  return async ({ workflowId, input }: SignChildRunRequest): Promise<RunAuthorization | null> => {
    if (!key) return null;
    const parent = Context.current().info.workflowExecution?.workflowId ?? '';
    const segment = workflowId.startsWith(`${parent}/`) ? workflowId.slice(parent.length + 1) : undefined;
    if (segment === undefined || !/^task-\d+-\d+$/.test(segment))
      throw ApplicationFailure.create({
        type: RUN_NOT_AUTHORIZED,
        nonRetryable: true,
        message: `durable-agent: ${parent} may sign only its own sub-agents' starts, not ${workflowId}.`,
      });
    return signRun(key, workflowId, input);
  };
}

/** The activities of this folder, by name. */
export function authorizationActivities(key: Uint8Array | undefined) {
  return {
    [ACTIVITY.verifyDecision]: createVerifyDecision(key),
    [ACTIVITY.verifyControl]: createVerifyControl(key),
    [ACTIVITY.signChildRun]: createSignChildRun(key),
  } satisfies AuthorizationActivities;
}
