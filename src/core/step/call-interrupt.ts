// Workflow-safe and deterministic: a tool call the operator interrupted (core/run/interrupt). A call under way was
// cancelled (a command's process group killed); one not started yet never runs; an approval wait is rejected. Each
// gets an envelope saying so and why, so the model knows what did not happen; the breakers do not count it.
import { releaseTrial } from '../breaker.js';
import { breakerKeysOf } from '../../tools/define-tool.js';
import type { ApprovalDecision } from '../../protocol/approval.js';
import { errorEnvelope } from '../../protocol/envelope.js';
import { setBreaker, workflowResult } from './call-records.js';
import { finish } from './call-attempts.js';
import type { CallNeed, CallRun } from './call-run.js';
import type { StepEnv } from './step-env.js';

/** Who interrupted and why, as the interrupt gave it. */
export interface InterruptCause {
  by?: string;
  text?: string;
}

/** `by alice: wrong directory` — the part of each message naming the interrupt. */
export function interruptCauseText(cause: InterruptCause): string {
  const by = cause.by ? ` (${cause.by})` : '';
  const text = cause.text?.trim();
  return `${by}${text ? `: ${text.length > 200 ? `${text.slice(0, 199)}…` : text}` : ' (no reason given)'}`;
}

/** The call's result after an interrupt: `started` when its activity was under way and was cancelled. */
export function onInterrupted(
  env: StepEnv,
  run: CallRun,
  cause: InterruptCause,
  started: boolean,
  now: number,
): CallNeed {
  const { state } = env;
  // The call did not run to an outcome: a HALF_OPEN trial it held goes back for the next call.
  for (const key of breakerKeysOf(run.tool)) setBreaker(state, key, releaseTrial(state.breakers[key]), now);
  const command = run.tool.category === 'command';
  const message = started
    ? `Interrupted by the operator${interruptCauseText(cause)}. The call was cancelled while it ran${command ? ' and its process group was killed' : ''}; what it did before that is not undone.`
    : `Not run: the operator interrupted the step before this call started${interruptCauseText(cause)}.`;
  const envelope = errorEnvelope({
    code: 'CANCELLED',
    message,
    details: { reason: 'interrupted', started, ...(cause.by ? { interrupted_by: cause.by } : {}) },
    context: run.context,
  });
  finish(env, run, workflowResult(env, run.callId, envelope), now);
  return { type: 'done', result: run.result! };
}

/** The rejection an interrupted approval wait gets (onDecision applies it as any rejection). */
export function interruptedDecision(callId: string, cause: InterruptCause): ApprovalDecision {
  return {
    tool_call_id: callId,
    decision: 'reject',
    reason: `interrupted by the operator${interruptCauseText(cause)}`,
    ...(cause.by ? { decided_by: cause.by } : {}),
  };
}
