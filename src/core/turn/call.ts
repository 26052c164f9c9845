// Sandbox-safe: the life of one tool call in a turn (TOOL-SPEC C.3 step 6), as a small state machine over plain data.
// The workflow asks `nextNeed` what the call needs next — a classification, a human decision, an activity — does that
// one awaited thing and reports back; every rule in between (breaker → permission → ask policy → run → breaker
// bookkeeping → read state → fallbacks → lifecycle and progress) is decided here, deterministically.
import type { ElsewhereResult, StoredToolResult, ToolActivityInput } from '../../protocol/tool-activity.js';
import type { ToolContract } from '../../tools/define-tool.js';
import type { ToolActivityPolicy } from '../../protocol/tool-activity.js';
import { breakerKeysOf, failedBreakerKey } from '../../tools/define-tool.js';
import type { ToolRegistry } from '../../tools/define-tool.js';
import type { ApprovalDecision, PendingApproval } from '../../protocol/approval.js';
import { callIdentity, DEFAULT_ASK_TIMEOUT_MS } from '../approvals.js';
import { fixArguments } from '../arguments/fix-arguments.js';
import { breakerGate, circuitOpenText, classifyOutcome, recordOutcome, releaseTrial } from '../breaker.js';
import type { EnvelopeContext } from '../../protocol/envelope.js';
import { abbreviateParams, errorEnvelope, okEnvelope } from '../../protocol/envelope.js';
import type { PermissionDecision } from '../permissions/index.js';
import type { BashClassification } from '../../protocol/bash-classification.js';
import { decidePermission, permissionDeniedError, permissionSubject } from '../permissions/index.js';
import type { AgentInput, AgentState } from '../state.js';
import { addEvent, addProgress } from '../state.js';
import type { ExecutablePlan } from '../tool-calls.js';
import type { FallbackNote, ToolOutcome } from '../../protocol/tool-outcome.js';
import type { MessageRef } from '../../protocol/transcript-ref.js';
import { activityFailureEnvelope } from './activity-failure.js';
import { lexicalPathOf, readStateFor } from './call-paths.js';
import { recordFinish, setBreaker, toolNameOf, workflowResult } from './call-records.js';
import { profileOffers, toolSearchScope } from '../tool-selection/step-tools.js';

/** What the rules read: the task's state (changed in place), the run's input and the task's tools. */
export interface TurnEnv {
  state: AgentState;
  input: AgentInput;
  registry: ToolRegistry;
}

/** A call's result: its tool message (stored, or waiting to be) and the summary the workflow decides on. */
export interface ToolResult {
  message: MessageRef;
  outcome: ToolOutcome;
}

/** One attempt at a call (the primary tool or a fallback): its result, and whether a tool actually ran. */
interface Attempt {
  result: ToolResult;
  ran: boolean;
  circuitOpen: boolean;
}

/** Where a call is: gemini-cli's scheduler status union, with the fallback chain folded in. */
export type CallPhase = 'gate' | 'classify' | 'decide' | 'awaiting_approval' | 'run' | 'done';

/** One call in flight. Plain data; `nextNeed` and the `on…` functions move it along. */
export interface CallRun {
  callId: string;
  index: number;
  started: number;
  phase: CallPhase;
  /** The tool of the current attempt: the primary, or the fallback serving it. */
  tool: ToolContract;
  input: Record<string, unknown>;
  context: EnvelopeContext;
  primaryTool: ToolContract;
  primaryInput: Record<string, unknown>;
  /** The primary call's arguments as echoed in envelopes: the progress line names the call as the model made it. */
  primaryParams: Record<string, unknown>;
  /** The current attempt was sent to the workflow's own worker first. */
  local: boolean;
  /** Set on a fallback attempt: its envelope says which tool served the call and why. */
  fallback?: FallbackNote;
  /** How many of the primary tool's fallbacks were looked at. */
  fallbacksSeen: number;
  primary?: Attempt;
  classification?: BashClassification;
  permission?: PermissionDecision;
  /** The lexical workspace-relative path of a `path` argument (read state and file rules). */
  lexicalPath?: string;
  result?: ToolResult;
  /** Since when the call waits for a human, and how long it waited in all: not the tool's own time. */
  awaitingSince?: number;
  waitedMs?: number;
}

/** What a call needs from the outside world next. */
export type CallNeed =
  | { type: 'classify'; command: string; cwd: string; workspace: string; taskQueue?: string; summary: string }
  | { type: 'approval'; request: PendingApproval; timeoutMs: number }
  | {
      type: 'activity';
      /** The activity type: the tool's name, or the one activity its kind runs through (MCP). */
      tool: string;
      policy: ToolActivityPolicy;
      request: ToolActivityInput;
      summary: string;
      /** Try it in the workflow's own worker first (a short read); the answer may be `elsewhere`. */
      local: boolean;
      taskQueue?: string;
    }
  | { type: 'done'; result: ToolResult };

/** Starts a planned call: a call that failed planning is done at once with its envelope. */
export function startCall(env: TurnEnv, plan: ExecutablePlan, now: number): { run?: CallRun; need: CallNeed } {
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
export function nextNeed(env: TurnEnv, run: CallRun, now: number): CallNeed {
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
        return activityNeed(env, run, true);
      case 'done':
        return { type: 'done', result: run.result! };
    }
  }
}

/** The shell classified the command (an activity where the workspace is). */
export function onClassified(env: TurnEnv, run: CallRun, classification: BashClassification, now: number): CallNeed {
  run.classification = classification;
  return nextNeed(env, run, now);
}

/** A human decided (or the wait timed out, which rejects). */
export function onDecision(env: TurnEnv, run: CallRun, decision: ApprovalDecision, now: number): CallNeed {
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
  env: TurnEnv,
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
  ranAttempt(env, run, { message: answer.message, outcome: answer.outcome }, now);
  return nextNeed(env, run, now);
}

/** The tool activity failed for good (or answered from a host that does not own the workspace). */
export function onActivityFailure(env: TurnEnv, run: CallRun, error: unknown, now: number): CallNeed {
  const envelope = activityFailureEnvelope(
    run.tool,
    run.tool.activity(run.input).startToCloseTimeoutMs,
    error,
    run.context,
  );
  ranAttempt(env, run, workflowResult(env, run.callId, envelope), now);
  return nextNeed(env, run, now);
}

/** The breaker gate (C.10), then the tool that runs in the workflow itself, then on to the permission decision. */
function gate(env: TurnEnv, run: CallRun, now: number): void {
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

function classifyNeed(env: TurnEnv, run: CallRun): CallNeed {
  const command = String(run.input.command);
  const label = command.replace(/\s+/g, ' ');
  return {
    type: 'classify',
    command,
    cwd: typeof run.input.cwd === 'string' ? run.input.cwd : '.',
    workspace: env.input.workspace,
    ...(env.input.toolTaskQueue ? { taskQueue: env.input.toolTaskQueue } : {}),
    summary: `classifyBash ${label.length > 80 ? `${label.slice(0, 79)}…` : label}`,
  };
}

/** C.5.1 and the run's ask policy (C.4): allow, deny, or ask — approved at once, denied at once, or a human waits. */
function decide(env: TurnEnv, run: CallRun, now: number): CallNeed | undefined {
  const { state, input, registry } = env;
  const permission = decidePermission(
    { tool: run.tool, input: run.input, ...(run.lexicalPath !== undefined ? { relPath: run.lexicalPath } : {}) },
    {
      mode: input.mode,
      // A tool the run's profile does not offer is as good as disabled for this run.
      enabled: registry.isEnabled(run.tool.name) && profileOffers(state, run.tool),
      approvals: new Set(state.approvals),
      ...(run.classification ? { bash: run.classification } : {}),
    },
  );
  run.permission = permission;
  addEvent(state, 'permission_decision', now, {
    tool_call_id: run.callId,
    tool_name: run.tool.name,
    level: permission.level,
    action: permission.action,
    reason: permission.reason,
    rule: permission.rule,
  });
  if (permission.action === 'allow') {
    startRun(env, run, now);
    return undefined;
  }
  if (permission.action === 'deny') {
    denied(env, run, permission, undefined, now);
    return undefined;
  }
  const key = permission.approvalKeys[0];
  addEvent(state, 'permission_ask', now, {
    tool_call_id: run.callId,
    tool: run.tool.name,
    level: permission.level,
    ...(key ? { key } : {}),
  });
  switch (askPolicyOf(input)) {
    case 'approve':
      approve(env, run, now);
      return undefined;
    case 'deny':
      denied(env, run, permission, 'the run does not ask (--ask deny)', now);
      return undefined;
    case 'wait':
      run.phase = 'awaiting_approval';
      run.awaitingSince = now;
      state.status = 'waiting_approval';
      return {
        type: 'approval',
        request: approvalRequest(env, run, permission, now),
        timeoutMs: input.askTimeoutMs ?? DEFAULT_ASK_TIMEOUT_MS,
      };
  }
}

/** `prompt` waits like `wait`: the CLI that started the run is the one that asks. */
function askPolicyOf(input: AgentInput): 'approve' | 'deny' | 'wait' {
  return input.askPolicy === 'approve' || input.askPolicy === 'deny' ? input.askPolicy : 'wait';
}

function approvalRequest(env: TurnEnv, run: CallRun, permission: PermissionDecision, now: number): PendingApproval {
  const key = permission.approvalKeys[0];
  return {
    callId: run.callId,
    identity: callIdentity(env.state.step, run.index, run.tool.name, run.input),
    tool: run.tool.name,
    level: permission.level,
    reason: permission.reason,
    ...(typeof run.input.command === 'string' ? { command: run.input.command } : {}),
    ...(typeof run.input.path === 'string' ? { path: run.input.path } : {}),
    ...(key ? { key } : {}),
    requestedAt: now,
  };
}

/** An approval covers this call; a network_write key granted once covers the task (C.4). */
function approve(env: TurnEnv, run: CallRun, now: number): void {
  const permission = run.permission!;
  if (permission.level === 'network_write') rememberKeys(env.state, permission.approvalKeys);
  startRun(env, run, now);
}

function rememberKeys(state: AgentState, keys: readonly string[]): void {
  state.approvals = [...new Set([...state.approvals, ...keys])];
}

/** A DENY, or an ASK that was not approved (`why` is what was said, or why nobody was asked). */
function denied(
  env: TurnEnv,
  run: CallRun,
  permission: PermissionDecision,
  why: string | undefined,
  now: number,
): void {
  const { state } = env;
  // The call never ran: a HALF_OPEN trial it held goes back for the next call.
  for (const key of breakerKeysOf(run.tool)) setBreaker(state, key, releaseTrial(state.breakers[key]), now);
  const error = permissionDeniedError(
    permission,
    permissionSubject(run.tool, run.input),
    why !== undefined ? { rejectionReason: why } : {},
  );
  const envelope = errorEnvelope({ ...error, context: run.context });
  settleAttempt(env, run, { result: workflowResult(env, run.callId, envelope), ran: false, circuitOpen: false }, now);
}

function startRun(env: TurnEnv, run: CallRun, now: number): void {
  addEvent(env.state, 'tool_lifecycle', now, { tool_call_id: run.callId, tool_name: run.tool.name, status: 'started' });
  run.phase = 'run';
}

/** The tool activity's input: validated arguments, and only the read-state entry of the call's own path. */
function activityNeed(env: TurnEnv, run: CallRun, tryLocal: boolean): CallNeed {
  const { state, input } = env;
  const policy = run.tool.activity(run.input);
  const request: ToolActivityInput = {
    taskId: state.taskId,
    turn: state.step,
    index: run.index,
    callId: run.callId,
    workspace: input.workspace,
    input: run.input,
    paramsInput: run.context.params_input,
    maximumAttempts: policy.maximumAttempts,
    ...(run.context.repairs ? { repairs: run.context.repairs } : {}),
    ...(run.context.ignored_params ? { ignoredParams: run.context.ignored_params } : {}),
    ...(run.tool.usesReadState ? { readState: readStateFor(state, run.lexicalPath) } : {}),
    ...(run.classification ? { classification: activityClassification(run.classification) } : {}),
    ...(input.envPass?.length && run.tool.confirmation === 'command' ? { envPass: input.envPass } : {}),
    // A call that asked runs only once approved.
    ...(run.permission?.action === 'ask' ? { approved: true } : {}),
    ...(run.fallback ? { fallback: run.fallback } : {}),
    ...(run.tool.origin === 'mcp' && state.mcp ? { mcp: { catalog: state.mcp.catalog, tool: run.tool.name } } : {}),
  };
  // A short read is tried in the workflow's own worker first; a run pinned to a host sends it there when this worker
  // does not own the workspace (the read answers `elsewhere`). MCP calls never are: they may take minutes, need
  // heartbeats, and belong to the worker that holds the server's connection.
  const local = tryLocal && run.tool.isConcurrencySafe(run.input) && run.tool.origin !== 'mcp';
  run.local = local;
  return {
    type: 'activity',
    tool: run.tool.activityType ?? run.tool.name,
    policy,
    request: local && input.toolTaskQueue ? { ...request, onlyOnHost: input.toolTaskQueue } : request,
    summary: run.tool.summarize(run.input),
    local,
    ...(!local && input.toolTaskQueue ? { taskQueue: input.toolTaskQueue } : {}),
  };
}

/** A tool ran (or its activity failed for good): the breaker counts it, then the attempt settles. */
/** What the tool activity needs of the classification: level and rule, and the hosts a network approval covers. */
function activityClassification(classification: BashClassification): NonNullable<ToolActivityInput['classification']> {
  const { level, rule, networkHosts } = classification;
  return { level, rule, ...(networkHosts ? { networkHosts } : {}) };
}

function ranAttempt(env: TurnEnv, run: CallRun, result: ToolResult, now: number): void {
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
function settleAttempt(env: TurnEnv, run: CallRun, attempt: Attempt, now: number): void {
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
function nextFallback(env: TurnEnv, run: CallRun, now: number): boolean {
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

function finish(env: TurnEnv, run: CallRun, result: ToolResult, now: number): void {
  run.result = result;
  run.phase = 'done';
  // The tool's time, without the time it waited for a human.
  const started = run.started + (run.waitedMs ?? 0);
  recordFinish(env, run.primaryTool.name, run.callId, result.outcome, run.primaryParams, started, now);
}
