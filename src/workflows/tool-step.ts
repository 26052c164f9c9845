// Sandboxed and deterministic: one turn's tool calls (TOOL-SPEC C.3 steps 1-8). Plans come from core/; every call
// passes the gates in workflow state (breaker → permission → the executor's read-before-write lock) and becomes an
// envelope, whatever happens: the loop never throws because of a tool.
import { ActivityFailure, TimeoutFailure, isCancellation } from '@temporalio/workflow';
import type { ToolActivityInput } from '../activities/tool-request.js';
import type { BreakerState } from '../core/breaker.js';
import { breakerGate, circuitOpenText, classifyOutcome, openTools, recordOutcome, releaseTrial } from '../core/breaker.js';
import { MAX_TURN_RESULT_BYTES } from '../core/budget.js';
import type { Envelope, EnvelopeContext } from '../core/envelope.js';
import { abbreviateParams, errorEnvelope, okEnvelope, serializeEnvelope } from '../core/envelope.js';
import { fixArguments } from '../core/arguments/fix-arguments.js';
import type { ModelTurn } from '../core/messages.js';
import type { BashClassification, PermissionDecision } from '../core/permissions/index.js';
import { decidePermission, normalizeRelativePath } from '../core/permissions/index.js';
import type { AgentInput, AgentState } from '../core/state.js';
import { addEvent, addProgress } from '../core/state.js';
import type { FallbackNote, ToolOutcome } from '../core/tool-outcome.js';
import { outcomeOf } from '../core/tool-outcome.js';
import type { MessageRef } from '../core/transcript-ref.js';
import { appendMessages, takeWrites, workflowMessage } from '../core/transcript-ref.js';
import type { PlannedCall } from '../core/tool-calls.js';
import { normalizeToolCallIds, partition, planToolCalls, toAssistantToolCalls } from '../core/tool-calls.js';
import type { ToolContract } from '../tools/define-tool.js';
import type { ToolRegistry } from '../tools/registry.js';
import { runToolSearch, TOOL_SEARCH_NAME } from '../tools/tool-search.js';
import { toolActivity, workspaceActivities } from './activities.js';
import type { ApprovalBook } from './approvals.js';

/** What a turn needs from the run. */
export interface TurnContext {
  state: AgentState;
  input: AgentInput;
  registry: ToolRegistry;
  approvals: ApprovalBook;
  /** Called when the run's status or pending approvals change (search attributes, current details). */
  publish(): void;
}

const DEFAULT_MAX_TOOL_CONCURRENCY = 4;
const DEFAULT_ASK_TIMEOUT_MS = 600_000;

/** A call that passed planning and will go through the gates. */
type ReadyCall = Extract<PlannedCall, { state: 'ready' }>;

/** A call's result: its tool message (stored, or waiting to be) and the summary the workflow decides on. */
interface ToolResult {
  message: MessageRef;
  outcome: ToolOutcome;
}

/** A finished call: its result, and whether a tool actually ran (only then does the breaker count it). */
interface CallOutcome {
  result: ToolResult;
  ran: boolean;
  circuitOpen: boolean;
}

/** Runs the tool calls of one assistant turn and appends one tool message per call, in request order. */
export async function runToolTurn(turnContext: TurnContext, turn: ModelTurn): Promise<void> {
  const { state, input, registry } = turnContext;
  const ids = normalizeToolCallIds(turn.toolCalls, state.step);
  // The assistant message is recorded with the final ids before anything runs (C.3 step 1, C.13).
  const assistant = workflowMessage({ role: 'assistant', content: turn.content, tool_calls: toAssistantToolCalls(turn.toolCalls, ids) }, state.pendingWrites);
  const discovered = new Set(state.discovered);
  const plans = planToolCalls(turn.toolCalls, ids, {
    resolveName: (raw) => registry.resolveName(raw),
    get: (name) => registry.get(name),
    availableNames: () => visibleToolNames(turnContext),
    isUndiscovered: (name) => registry.get(name)?.shouldDefer === true && !discovered.has(name),
  });
  const batches = partition(plans);
  addEvent(state, 'tool_orchestration_plan', Date.now(), {
    batches: batches.map((batch) => ({
      concurrency_safe: batch.safe,
      tool_names: batch.calls.map(toolNameOf),
      tool_call_ids: batch.calls.map((plan) => plan.callId),
    })),
  });
  for (const plan of plans) {
    const repairs = plan.state === 'ready' ? plan.repairs : plan.envelope.context.repairs;
    if (repairs?.length) addEvent(state, 'argument_repair', Date.now(), { tool_call_id: plan.callId, repairs });
  }

  const results = new Array<ToolResult>(plans.length);
  const limit = input.maxToolConcurrency ?? DEFAULT_MAX_TOOL_CONCURRENCY;
  for (const [number, batch] of batches.entries()) {
    addEvent(state, 'tool_batch_start', Date.now(), { batch: number, size: batch.calls.length, concurrency_safe: batch.safe });
    await forEachWithConcurrency(batch.calls, batch.safe ? limit : 1, async (plan) => {
      results[plan.index] = await executePlan(turnContext, plan);
    });
    addEvent(state, 'tool_batch_end', Date.now(), { batch: number });
  }

  const budgeted = await budgetTurn(turnContext, plans, results);
  state.transcript = appendMessages(
    state.transcript,
    [{ ...assistant, role: 'assistant' }, ...budgeted.map((result) => ({ ...result.message, role: 'tool' as const }))],
    state.pendingWrites,
  );
  state.toolCalls += plans.length;
}

/** The tool names the model sees this step (C.2 filtering, with the breakers' time check). */
export function visibleToolNames(turnContext: Pick<TurnContext, 'state' | 'input' | 'registry'>): string[] {
  const { state, input, registry } = turnContext;
  const open = openTools(state.breakers, Date.now(), input.breaker ?? {});
  // Names only: the schemas are built in the model activity (the workflow never needs them).
  return registry.visible({ mode: input.mode, openTools: open, discovered: new Set(state.discovered) }).map((tool) => tool.name);
}

function toolNameOf(plan: PlannedCall): string {
  return plan.state === 'ready' ? plan.tool.name : plan.toolName;
}

async function executePlan(turnContext: TurnContext, plan: PlannedCall): Promise<ToolResult> {
  const { state } = turnContext;
  const started = Date.now();
  addEvent(state, 'tool_lifecycle', started, { tool_call_id: plan.callId, tool_name: toolNameOf(plan), status: 'requested' });
  if (plan.state === 'failed') {
    const result = workflowResult(turnContext, plan.callId, plan.envelope);
    finish(turnContext, toolNameOf(plan), plan.callId, result.outcome, plan.envelope.context.params_input, started);
    return result;
  }
  state.lastTool = plan.tool.name;
  const context: EnvelopeContext = {
    tool_call_id: plan.callId,
    cwd: '.',
    params_input: abbreviateParams(plan.paramsInput),
    ...(plan.repairs.length ? { repairs: plan.repairs } : {}),
    ...(plan.ignoredParams.length ? { ignored_params: plan.ignoredParams } : {}),
  };
  const outcome = await callWithFallbacks(turnContext, plan, plan.tool, plan.input, context);
  finish(turnContext, plan.tool.name, plan.callId, outcome.result.outcome, context.params_input, started);
  return outcome.result;
}

/** A result the workflow made itself (planning errors, gates, lost activities): its message waits to be stored. */
function workflowResult(turnContext: TurnContext, callId: string, envelope: Envelope): ToolResult {
  const message = workflowMessage({ role: 'tool', tool_call_id: callId, content: serializeEnvelope(envelope) }, turnContext.state.pendingWrites);
  return { message, outcome: outcomeOf(envelope) };
}

function finish(
  turnContext: TurnContext,
  tool: string,
  callId: string,
  envelope: ToolOutcome,
  params: Record<string, unknown>,
  started: number,
): void {
  const { state } = turnContext;
  const ms = Date.now() - started;
  addEvent(state, 'tool_lifecycle', Date.now(), {
    tool_call_id: callId,
    tool_name: tool,
    status: envelope.status === 'error' ? 'failed' : 'completed',
    ...(envelope.error ? { code: envelope.error.code } : {}),
  });
  const label = ['path', 'pattern', 'command', 'query', 'input'].map((key) => params[key]).find((value) => typeof value === 'string');
  const single = typeof label === 'string' ? label.replace(/\s+/g, ' ') : callId;
  addProgress(state, {
    kind: 'tool',
    step: state.step,
    tool,
    status: envelope.status === 'error' ? (envelope.error?.code ?? 'error') : envelope.status,
    ms,
    text: single.length > 60 ? `${single.slice(0, 59)}…` : single,
    ...(envelope.status === 'error' ? { detail: envelope.text } : {}),
  });
}

/**
 * Runs a call, and when the tool itself is failing (a breaker-counted error after its retries, or an open circuit),
 * tries the tool's declared fallback chain in order. The envelope says which tool served the call and why.
 */
async function callWithFallbacks(
  turnContext: TurnContext,
  plan: ReadyCall,
  tool: ToolContract,
  input: Record<string, unknown>,
  context: EnvelopeContext,
): Promise<CallOutcome> {
  const primary = await gatedCall(turnContext, plan, tool, input, context);
  const failing =
    primary.circuitOpen || (primary.ran && classifyOutcome(primary.result.outcome, { ranTool: true }) === 'counted_failure');
  if (!failing || !tool.fallbacks?.length) return primary;
  const reason = primary.circuitOpen ? 'circuit_open' : `primary_failed:${primary.result.outcome.error?.code ?? 'error'}`;
  for (const fallback of tool.fallbacks) {
    const next = turnContext.registry.get(fallback.tool);
    if (!next || !turnContext.registry.isEnabled(next.name)) continue;
    const fixed = fixArguments(next, fallback.mapInput(input));
    if (!fixed.ok) continue;
    addEvent(turnContext.state, 'tool_fallback', Date.now(), { tool_call_id: plan.callId, from: tool.name, to: next.name, reason });
    // The fallback's own envelope says which tool served the call and why (the activity adds the note).
    const note: FallbackNote = { served_by: next.name, primary: tool.name, reason, primary_error: primary.result.outcome.text };
    const served = await gatedCall(turnContext, plan, next, fixed.input, { ...context, params_input: abbreviateParams(fixed.normalized) }, note);
    if (served.result.outcome.status !== 'error') return served;
  }
  return primary;
}

/** C.3 step 6: breaker gate → permission → activity → breaker bookkeeping → read-state update. */
async function gatedCall(
  turnContext: TurnContext,
  plan: ReadyCall,
  tool: ToolContract,
  input: Record<string, unknown>,
  context: EnvelopeContext,
  fallback?: FallbackNote,
): Promise<CallOutcome> {
  const { state, input: run } = turnContext;
  const breakerConfig = run.breaker ?? {};

  const gate = breakerGate(state.breakers[tool.name], Date.now(), breakerConfig);
  setBreaker(state, tool.name, gate.next, gate.transition);
  if (!gate.pass) {
    const envelope = errorEnvelope({
      code: 'CIRCUIT_OPEN',
      message: circuitOpenText(tool.name, gate.details.failures),
      details: { ...gate.details },
      context,
    });
    return { result: workflowResult(turnContext, plan.callId, envelope), ran: false, circuitOpen: true };
  }

  if (tool.workflowLocal && tool.name === TOOL_SEARCH_NAME) {
    const found = runToolSearch(turnContext.registry, input as { query: string; max_results: number }, { mode: run.mode });
    state.discovered = [...new Set([...state.discovered, ...found.discovered])];
    setBreaker(state, tool.name, recordOutcome(state.breakers[tool.name], 'success', Date.now(), breakerConfig).next);
    const envelope = okEnvelope({ data: found.data, text: found.text, context });
    return { result: workflowResult(turnContext, plan.callId, envelope), ran: true, circuitOpen: false };
  }

  const classification = tool.name === 'Bash' ? await classifyCommand(turnContext, input) : undefined;
  const permission = decidePermission(
    { tool, input, ...(typeof input.path === 'string' ? { relPath: relativeToWorkspace(run.workspace, input.path) } : {}) },
    {
      mode: run.mode,
      enabled: turnContext.registry.isEnabled(tool.name),
      approvals: new Set(state.approvals),
      ...(classification ? { bash: classification } : {}),
    },
  );
  addEvent(state, 'permission_decision', Date.now(), {
    tool_call_id: plan.callId,
    tool_name: tool.name,
    level: permission.level,
    action: permission.action,
    reason: permission.reason,
    rule: permission.rule,
  });
  const denied = permission.action === 'allow' ? undefined : await resolvePermission(turnContext, plan, tool, input, permission, context);
  if (denied) {
    setBreaker(state, tool.name, releaseTrial(state.breakers[tool.name]));
    return { result: workflowResult(turnContext, plan.callId, denied), ran: false, circuitOpen: false };
  }

  addEvent(state, 'tool_lifecycle', Date.now(), { tool_call_id: plan.callId, tool_name: tool.name, status: 'started' });
  const result = await runActivity(turnContext, plan, tool, input, context, classification, fallback);
  const outcome = classifyOutcome(result.outcome, { ranTool: true, countAllErrors: breakerConfig.countAllErrors ?? false });
  const update = recordOutcome(state.breakers[tool.name], outcome, Date.now(), breakerConfig, result.outcome.error?.message);
  setBreaker(state, tool.name, update.next, update.transition);
  return { result, ran: true, circuitOpen: false };
}

function setBreaker(state: AgentState, tool: string, next: BreakerState, transition?: { from: string; to: string }): void {
  state.breakers[tool] = next;
  if (transition) addEvent(state, 'circuit_state_change', Date.now(), { tool_name: tool, ...transition });
}

async function classifyCommand(turnContext: TurnContext, input: Record<string, unknown>): Promise<BashClassification> {
  // Classification reads the workspace (symlinks, existing files) and needs a real shell parser, so it runs where the
  // workspace is, as a short activity whose result is recorded in history: a replay sees the same decision.
  const command = input.command as string;
  const label = command.replace(/\s+/g, ' ');
  const { classifyBash } = workspaceActivities(
    turnContext.input.toolTaskQueue,
    `classifyBash ${label.length > 80 ? `${label.slice(0, 79)}…` : label}`,
  );
  return classifyBash({ command, cwd: (input.cwd as string | undefined) ?? '.', workspace: turnContext.input.workspace });
}

/** Applies the decision under the run's ask policy; returns the error envelope when the call may not run. */
async function resolvePermission(
  turnContext: TurnContext,
  plan: ReadyCall,
  tool: ToolContract,
  input: Record<string, unknown>,
  permission: PermissionDecision,
  context: EnvelopeContext,
): Promise<Envelope | undefined> {
  const { state, input: run } = turnContext;
  if (permission.action === 'allow') return undefined;
  const subject = typeof input.command === 'string' ? input.command : tool.name;
  const key = permission.approvalKeys[0];
  const details = {
    level: permission.level,
    action: permission.action,
    effective_action: 'deny',
    reason: permission.reason,
    rule: permission.rule,
    ...(key ? { approval_key: key } : {}),
  };
  if (permission.action === 'deny') {
    const code = permission.denyCode ?? 'PERMISSION_DENIED';
    const message =
      code === 'ACCESS_DENIED' ? permission.reason : `'${subject}' is not allowed (${permission.level}: ${permission.reason}).`;
    return errorEnvelope({ code, message, details: { reason: permission.rule, permission: details }, context });
  }

  addEvent(state, 'permission_ask', Date.now(), {
    tool_call_id: plan.callId,
    tool: tool.name,
    level: permission.level,
    ...(key ? { key } : {}),
  });
  let approved: boolean;
  let why = 'the run does not ask (--ask deny)';
  if (run.askPolicy === 'approve') approved = true;
  else if (run.askPolicy === 'deny') approved = false;
  else {
    state.status = 'waiting_approval';
    turnContext.publish();
    const decision = await turnContext.approvals.request(
      {
        callId: plan.callId,
        tool: tool.name,
        level: permission.level,
        reason: permission.reason,
        ...(typeof input.command === 'string' ? { command: input.command } : {}),
        ...(typeof input.path === 'string' ? { path: input.path } : {}),
        ...(key ? { key } : {}),
        requestedAt: Date.now(),
      },
      run.askTimeoutMs ?? DEFAULT_ASK_TIMEOUT_MS,
    );
    state.status = 'running';
    turnContext.publish();
    approved = decision.decision === 'approve';
    why = decision.reason ?? (approved ? 'approved' : 'rejected by an operator');
    if (approved && decision.remember) state.approvals = [...new Set([...state.approvals, ...permission.approvalKeys])];
  }
  if (approved) {
    // An approval covers this call; a network_write key granted once covers the task (C.4).
    if (permission.level === 'network_write') state.approvals = [...new Set([...state.approvals, ...permission.approvalKeys])];
    return undefined;
  }
  return errorEnvelope({
    code: 'PERMISSION_DENIED',
    message: `'${subject}' requires confirmation (${permission.level}: ${permission.reason}) and was not approved.`,
    details: { reason: 'not_approved', decision_reason: why, permission: details },
    context,
  });
}

async function runActivity(
  turnContext: TurnContext,
  plan: ReadyCall,
  tool: ToolContract,
  input: Record<string, unknown>,
  context: EnvelopeContext,
  classification: BashClassification | undefined,
  fallback: FallbackNote | undefined,
): Promise<ToolResult> {
  const { state, input: run } = turnContext;
  const policy = tool.activity(input);
  const lexicalPath = typeof input.path === 'string' ? relativeToWorkspace(run.workspace, input.path) : undefined;
  const summary = tool.summarize(input);
  const request: ToolActivityInput = {
    taskId: state.taskId,
    turn: state.step,
    index: plan.index,
    callId: plan.callId,
    workspace: run.workspace,
    input,
    paramsInput: context.params_input,
    maximumAttempts: policy.maximumAttempts,
    ...(context.repairs ? { repairs: context.repairs } : {}),
    ...(context.ignored_params ? { ignoredParams: context.ignored_params } : {}),
    ...(usesReadState(tool.name) ? { readState: readStateFor(state, lexicalPath) } : {}),
    ...(classification ? { classification: { level: classification.level, rule: classification.rule } } : {}),
    ...(fallback ? { fallback } : {}),
  };
  try {
    // A short read is tried right here first (a local activity); it runs on the workspace's queue when this worker
    // does not own the workspace.
    const local = tool.isConcurrencySafe(input)
      ? await toolActivity(tool.name, policy, { summary, taskQueue: undefined, local: true })({
          ...request,
          ...(run.toolTaskQueue ? { onlyOnHost: run.toolTaskQueue } : {}),
        })
      : undefined;
    const result =
      local && !('elsewhere' in local) ? local : await toolActivity(tool.name, policy, { summary, taskQueue: run.toolTaskQueue })(request);
    if ('elsewhere' in result) throw new Error(`Tool '${tool.name}' answered from a worker that does not own the workspace.`);
    const update = result.readStateUpdate;
    if (update) {
      if (update.entry) state.readState[update.key] = update.entry;
      else delete state.readState[update.key];
      if (lexicalPath !== undefined && lexicalPath !== update.key) state.readStateAliases[lexicalPath] = update.key;
    }
    return { message: result.message, outcome: result.outcome };
  } catch (error) {
    if (isCancellation(error)) throw error;
    return workflowResult(turnContext, plan.callId, activityFailureEnvelope(tool.name, policy.startToCloseTimeoutMs, error, context));
  }
}

/**
 * The read-state entry of the file a call names, and nothing else: activity inputs stay the same size however many
 * files the task has read. The executor keys entries by the symlink-resolved path, which the workflow learns from
 * each update; a path never seen resolves to itself (a missing entry only means "read it first").
 */
function readStateFor(state: AgentState, lexicalPath: string | undefined): AgentState['readState'] {
  if (lexicalPath === undefined) return {};
  const key = state.readStateAliases[lexicalPath] ?? lexicalPath;
  const entry = state.readState[key];
  return entry ? { [key]: entry } : {};
}

function usesReadState(toolName: string): boolean {
  return toolName === 'ReadFile' || toolName === 'WriteFile' || toolName === 'EditFile';
}

/** The workspace-relative form of a path argument, for the file write rules (the executor enforces the real boundary). */
function relativeToWorkspace(workspace: string, path: string): string {
  const root = workspace.replace(/\/+$/, '');
  const inside = path === root ? '.' : path.startsWith(`${root}/`) ? path.slice(root.length + 1) : path;
  return normalizeRelativePath(inside);
}

/** An activity that exhausted its retries becomes an envelope the model can act on; the loop goes on. */
function activityFailureEnvelope(toolName: string, timeoutMs: number, error: unknown, context: EnvelopeContext): Envelope {
  const cause = error instanceof ActivityFailure ? error.cause : error;
  if (cause instanceof TimeoutFailure && cause.timeoutType === 'START_TO_CLOSE') {
    return errorEnvelope({
      code: 'TIMEOUT',
      message: `Tool '${toolName}' did not finish within ${timeoutMs} ms.`,
      details: { timeout_type: 'start_to_close' },
      context,
    });
  }
  if (cause instanceof TimeoutFailure) {
    // A missed heartbeat (or a task nobody picked up) means the worker running the tool went away mid-call.
    return errorEnvelope({
      code: 'EXECUTION_ERROR',
      message:
        toolName === 'Bash'
          ? 'worker lost during execution; the command may have partially run'
          : `Tool '${toolName}' failed: worker lost during execution.`,
      details: { reason: 'worker_lost', timeout_type: cause.timeoutType },
      context,
    });
  }
  const message = cause instanceof Error ? cause.message : String(cause);
  return errorEnvelope({ code: 'INTERNAL_ERROR', message: `Tool '${toolName}' failed: ${message}`, context });
}

/**
 * C.9 layer 2: keeps one turn's tool messages within MAX_TURN_RESULT_BYTES, largest results first. The workflow only
 * sees sizes; when they add up to too much, an activity where the workspace is compresses and spills the largest.
 */
async function budgetTurn(turnContext: TurnContext, plans: PlannedCall[], results: ToolResult[]): Promise<ToolResult[]> {
  const { state, input } = turnContext;
  const total = results.reduce((sum, result) => sum + result.outcome.bytes, 0);
  if (total <= MAX_TURN_RESULT_BYTES) return results;
  const { budgetTurn: activity } = workspaceActivities(input.toolTaskQueue, `budgetTurn step ${state.step} (${results.length} results, ${total} bytes)`);
  const writes = takeWrites(state);
  const budgeted = await activity({
    workspace: input.workspace,
    taskId: state.taskId,
    turn: state.step,
    writes: writes.content,
    results: results.map((result, index) => ({
      key: result.message.key,
      compressed: result.outcome.compressed,
      toolName: toolNameOf(plans[index]!),
      callId: plans[index]!.callId,
    })),
  });
  writes.stored();
  for (const item of budgeted.items) {
    addEvent(state, 'tool_result_budget_item', Date.now(), { tool_call_id: plans[item.index]!.callId, ...item.event });
  }
  const next = [...results];
  for (const item of budgeted.items) next[item.index] = { message: item.message, outcome: item.outcome };
  return next;
}

/** A bounded pool: at most `limit` calls in flight; results are placed by index, so completion order never matters. */
async function forEachWithConcurrency<T>(items: T[], limit: number, run: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const lanes = Array.from({ length: Math.min(Math.max(1, limit), items.length) }, async () => {
    while (next < items.length) {
      const item = items[next++]!;
      await run(item);
    }
  });
  await Promise.all(lanes);
}
