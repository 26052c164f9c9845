// Workflow-safe: the life of one tool call in a step (docs/tools.md §3 step 6), as a small state machine over plain
// data. The workflow asks `nextNeed` what the call needs next — a classification, a human decision, an activity — does
// that one awaited thing and reports back; every rule in between (breaker → permission → ask policy → run → breaker
// bookkeeping → read state → fallbacks → lifecycle and progress) is decided here and in the call-*.ts files beside it,
// deterministically.
import type { ElsewhereResult, StoredToolResult } from '../../protocol/tool-activity.js';
import { breakerKeysOf } from '../../tools/define-tool.js';
import type { ApprovalDecision } from '../../protocol/approval.js';
import { breakerGate, circuitOpenText, recordOutcome, releaseTrial } from '../breaker.js';
import type { EnvelopeContext } from '../../protocol/envelope.js';
import { abbreviateParams, errorEnvelope, okEnvelope } from '../../protocol/envelope.js';
import type { BashClassification } from '../../protocol/bash-classification.js';
import { addEvent, addProgress } from '../state.js';
import type { ExecutablePlan } from '../tool-calls.js';
import { activityFailureEnvelope } from './activity-failure.js';
import { lexicalPathOf } from './call-paths.js';
import { recordFinish, setBreaker, toolNameOf, workflowResult } from './call-records.js';
import { toolSearchScope } from '../tool-selection/step-tools.js';
import type { StepEnv } from './step-env.js';
import type { CallNeed, CallRun } from './call-run.js';
import { ranAttempt, settleAttempt } from './call-attempts.js';
import { approve, decide, denied, rememberKeys } from './call-permission.js';
import { activityNeed, baselineNeed, classifyNeed } from './call-activity.js';
import type { ContentKey } from '../../protocol/content-key.js';
import type { TaskArguments } from '../sub-agents/child-start.js';
import type { ChildEnding } from '../sub-agents/child-result.js';
import { childEnvelope } from '../sub-agents/child-result.js';

/** Starts a planned call: a call that failed planning is done at once with its envelope. */
export function startCall(env: StepEnv, plan: ExecutablePlan, now: number): { run?: CallRun; need: CallNeed } {
  addEvent(env.state, 'tool_lifecycle', now, {
    tool_call_id: plan.callId,
    tool_name: toolNameOf(plan),
    status: 'requested',
  });
  if (plan.state === 'failed') {
    const result = workflowResult(env, plan.callId, plan.envelope);
    recordFinish(env, plan.toolName, plan.callId, result.outcome, plan.envelope.context.params_input, now, now);
    return { need: { type: 'done', result } };
  }
  env.state.lastTool = plan.tool.name;
  const context: EnvelopeContext = {
    tool_call_id: plan.callId,
    cwd: '.',
    params_input: abbreviateParams(plan.paramsInput),
    ...(plan.repairs.length ? { repairs: plan.repairs } : {}),
    ...(plan.ignoredParams.length ? { ignored_params: plan.ignoredParams } : {}),
  };
  const run: CallRun = {
    callId: plan.callId,
    index: plan.index,
    started: now,
    phase: 'gate',
    tool: plan.tool,
    input: plan.input,
    context,
    primaryTool: plan.tool,
    primaryInput: plan.input,
    primaryParams: context.params_input,
    local: false,
    fallbacksSeen: 0,
    ...lexicalPathOf(env.input.workspace, plan.input),
  };
  return { run, need: nextNeed(env, run, now) };
}

/** Moves the call as far as it goes without the outside world, and says what it needs then. */
export function nextNeed(env: StepEnv, run: CallRun, now: number): CallNeed {
  for (;;) {
    switch (run.phase) {
      case 'gate':
        gate(env, run, now);
        break;
      case 'classify':
        if (!run.classification) return classifyNeed(env, run);
        run.phase = 'decide';
        break;
      case 'decide': {
        const need = decide(env, run, now);
        if (need) return need;
        break;
      }
      case 'awaiting_approval':
        throw new Error(`call ${run.callId} is waiting for a decision; report it with onDecision`);
      case 'run':
        if (run.tool.runsAsChild)
          return { type: 'child', index: run.index, args: run.input as unknown as TaskArguments };
        return baselineNeed(env, run) ?? activityNeed(env, run, true);
      case 'done':
        return { type: 'done', result: run.result! };
    }
  }
}

/** The run's baseline checkpoint was recorded (a key) or could not be (undefined: the tool's activity takes one). */
export function onBaseline(env: StepEnv, run: CallRun, checkpoint: ContentKey | undefined, now: number): CallNeed {
  run.baselineAsked = true;
  if (checkpoint) {
    env.state.checkpoint = checkpoint;
    delete env.state.checkpointStale;
  }
  return nextNeed(env, run, now);
}

/** The shell classified the command (an activity where the workspace is). */
export function onClassified(env: StepEnv, run: CallRun, classification: BashClassification, now: number): CallNeed {
  run.classification = classification;
  return nextNeed(env, run, now);
}

/** A human decided (or the wait timed out, which rejects). */
export function onDecision(env: StepEnv, run: CallRun, decision: ApprovalDecision, now: number): CallNeed {
  const { state } = env;
  const permission = run.permission!;
  state.status = 'running';
  const approved = decision.decision === 'approve';
  run.waitedMs = (run.waitedMs ?? 0) + (now - (run.awaitingSince ?? now));
  // Who decided and why, in the progress `run` and `watch` print.
  const who = decision.decided_by ?? 'an operator';
  addProgress(state, {
    kind: 'approval',
    step: state.step,
    tool: run.tool.name,
    status: approved ? 'approved' : 'rejected',
    ms: run.waitedMs,
    text: `${approved ? 'approved' : 'rejected'} by ${who}${decision.reason ? `: ${decision.reason}` : ''}`,
  });
  if (approved && decision.remember) rememberKeys(state, permission.approvalKeys);
  if (approved) {
    approve(env, run, now);
    return nextNeed(env, run, now);
  }
  denied(env, run, permission, decision.reason ?? 'rejected by an operator', now);
  return nextNeed(env, run, now);
}

/**
 * The tool activity answered. A short read tried in the workflow's worker may answer that the workspace is on another
 * host: then it goes to the workspace's queue.
 */
export function onActivityResult(
  env: StepEnv,
  run: CallRun,
  answer: StoredToolResult | ElsewhereResult,
  now: number,
): CallNeed {
  if ('elsewhere' in answer) {
    if (run.local) return activityNeed(env, run, false);
    return onActivityFailure(
      env,
      run,
      new Error(`Tool '${run.tool.name}' answered from a worker that does not own the workspace.`),
      now,
    );
  }
  const { state } = env;
  const update = answer.readStateUpdate;
  if (update) {
    if (update.entry) state.readState[update.key] = update.entry;
    else delete state.readState[update.key];
    if (run.lexicalPath !== undefined && run.lexicalPath !== update.key)
      state.readStateAliases[run.lexicalPath] = update.key;
  }
  if (answer.checkpoint) {
    state.checkpoint = answer.checkpoint.after;
    state.checkpointLog = answer.checkpoint.log;
    delete state.checkpointStale;
  }
  ranAttempt(env, run, { message: answer.message, outcome: answer.outcome }, now);
  return nextNeed(env, run, now);
}

/**
 * The tool activity failed for good. A read tried in the workflow's own worker (bounded, tried once) that failed or ran
 * out of time runs again as an ordinary activity, with the tool's own retries and limits.
 */
export function onActivityFailure(env: StepEnv, run: CallRun, error: unknown, now: number): CallNeed {
  if (run.local) return activityNeed(env, run, false);
  const envelope = activityFailureEnvelope(
    run.tool,
    run.tool.activity(run.input).startToCloseTimeoutMs,
    error,
    run.context,
  );
  ranAttempt(env, run, workflowResult(env, run.callId, envelope), now);
  return nextNeed(env, run, now);
}

/** A Task call's child ended (or was refused before it started): its answer or failure is the call's result. */
export function onChildEnded(
  env: StepEnv,
  run: CallRun,
  child: { workflowId: string; ending: ChildEnding } | { refused: string },
  now: number,
): CallNeed {
  if ('refused' in child) {
    const envelope = errorEnvelope({ code: 'INVALID_PARAM', message: child.refused, context: run.context });
    settleAttempt(env, run, { result: workflowResult(env, run.callId, envelope), ran: false, circuitOpen: false }, now);
  } else
    ranAttempt(
      env,
      run,
      workflowResult(env, run.callId, childEnvelope(child.workflowId, child.ending, run.context)),
      now,
    );
  return nextNeed(env, run, now);
}

/** The breaker gate (§10), then the tool that runs in the workflow itself, then on to the permission decision. */
function gate(env: StepEnv, run: CallRun, now: number): void {
  const { state, input, registry } = env;
  const config = input.breaker ?? {};
  const keys = breakerKeysOf(run.tool);
  for (const [index, key] of keys.entries()) {
    const check = breakerGate(state.breakers[key], now, config);
    setBreaker(state, key, check.next, now, check.transition);
    if (check.pass) continue;
    // A trial slot taken at a gate passed before this one goes back: the call does not run.
    for (const passed of keys.slice(0, index)) setBreaker(state, passed, releaseTrial(state.breakers[passed]), now);
    const envelope = errorEnvelope({
      code: 'CIRCUIT_OPEN',
      message: circuitOpenText(run.tool.name, check.details.failures, key === run.tool.name ? undefined : key),
      details: { ...check.details },
      context: run.context,
    });
    settleAttempt(env, run, { result: workflowResult(env, run.callId, envelope), ran: false, circuitOpen: true }, now);
    return;
  }
  if (run.tool.runInWorkflow) {
    const searchScope = toolSearchScope(env);
    const found = run.tool.runInWorkflow(run.input, {
      registry,
      mode: input.mode,
      ...(searchScope ? { searchScope } : {}),
    });
    state.discovered = [...new Set([...state.discovered, ...found.discovered])];
    for (const key of keys)
      setBreaker(state, key, recordOutcome(state.breakers[key], 'success', now, config).next, now);
    const envelope = okEnvelope({ data: found.data, text: found.text, context: run.context });
    settleAttempt(env, run, { result: workflowResult(env, run.callId, envelope), ran: true, circuitOpen: false }, now);
    return;
  }
  run.phase = run.tool.confirmation === 'command' ? 'classify' : 'decide';
}
