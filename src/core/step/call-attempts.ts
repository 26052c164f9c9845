// Workflow-safe: the end of one attempt at a call (the primary tool or a fallback): the breakers count it
// (docs/tools.md §10), a failing primary goes to its declared fallbacks in order, and the call finishes with the result
// that stands.
import { breakerKeysOf, failedBreakerKey } from '../../tools/define-tool.js';
import { fixArguments } from '../arguments/fix-arguments.js';
import { classifyOutcome, recordOutcome } from '../breaker.js';
import { abbreviateParams } from '../../protocol/envelope.js';
import { addEvent } from '../state.js';
import { lexicalPathOf } from './call-paths.js';
import { recordFinish, setBreaker } from './call-records.js';
import type { StepEnv, ToolResult } from './step-env.js';
import type { Attempt, CallRun } from './call-run.js';

/** A tool ran (or its activity failed for good): the breaker counts it, then the attempt settles. */
export function ranAttempt(env: StepEnv, run: CallRun, result: ToolResult, now: number): void {
  const { state, input } = env;
  const config = input.breaker ?? {};
  const outcome = classifyOutcome(result.outcome, { ranTool: true, countAllErrors: config.countAllErrors ?? false });
  const error = result.outcome.error;
  const counted = failedBreakerKey(run.tool, error?.code);
  for (const key of breakerKeysOf(run.tool)) {
    // A failure counts once, toward the breaker of what failed; for the other it is neutral (its trial goes back).
    const own = outcome === 'counted_failure' && key !== counted ? 'neutral' : outcome;
    const update = recordOutcome(state.breakers[key], own, now, config, error?.message);
    setBreaker(state, key, update.next, now, update.transition);
  }
  settleAttempt(env, run, { result, ran: true, circuitOpen: false }, now);
}

/**
 * An attempt is over. When the primary tool itself is failing (a breaker-counted error after its retries, or an open
 * circuit), the call goes to the tool's declared fallbacks in order; the first that does not fail serves it, and when
 * none does, the primary's result stands.
 */
export function settleAttempt(env: StepEnv, run: CallRun, attempt: Attempt, now: number): void {
  if (!run.primary) {
    run.primary = attempt;
    const failing =
      attempt.circuitOpen ||
      (attempt.ran && classifyOutcome(attempt.result.outcome, { ranTool: true }) === 'counted_failure');
    if (failing && nextFallback(env, run, now)) return;
    return finish(env, run, attempt.result, now);
  }
  if (attempt.result.outcome.status !== 'error') return finish(env, run, attempt.result, now);
  if (nextFallback(env, run, now)) return;
  finish(env, run, run.primary.result, now);
}

/** Moves the call to the next usable fallback of its primary tool; false when none is left. */
function nextFallback(env: StepEnv, run: CallRun, now: number): boolean {
  const { registry, state } = env;
  const primary = run.primary!;
  const fallbacks = run.primaryTool.fallbacks ?? [];
  const reason = primary.circuitOpen
    ? 'circuit_open'
    : `primary_failed:${primary.result.outcome.error?.code ?? 'error'}`;
  while (run.fallbacksSeen < fallbacks.length) {
    const fallback = fallbacks[run.fallbacksSeen++]!;
    const next = registry.get(fallback.tool);
    if (!next || !registry.isEnabled(next.name)) continue;
    const fixed = fixArguments(next, fallback.mapInput(run.primaryInput));
    if (!fixed.ok) continue;
    addEvent(state, 'tool_fallback', now, {
      tool_call_id: run.callId,
      from: run.primaryTool.name,
      to: next.name,
      reason,
    });
    run.tool = next;
    run.input = fixed.input;
    run.context = { ...run.context, params_input: abbreviateParams(fixed.normalized) };
    run.fallback = {
      served_by: next.name,
      primary: run.primaryTool.name,
      reason,
      primary_error: primary.result.outcome.text,
    };
    run.classification = undefined;
    run.permission = undefined;
    Object.assign(run, lexicalPathOf(env.input.workspace, run.input));
    run.phase = 'gate';
    return true;
  }
  return false;
}

/** The call is over with `result`, whatever its fallbacks (an interrupted call goes to none). */
export function finish(env: StepEnv, run: CallRun, result: ToolResult, now: number): void {
  run.result = result;
  run.phase = 'done';
  // The tool's time, without the time it waited for a human.
  const started = run.started + (run.waitedMs ?? 0);
  recordFinish(env, run.primaryTool.name, run.callId, result.outcome, run.primaryParams, started, now);
}
