// Sandboxed and deterministic: the ReAct loop as a Temporal workflow, one iteration per step.
// Decisions come from core/ (pure); every side effect is an activity; time and ids come from Temporal's APIs.
import {
  ActivityFailure,
  ApplicationFailure,
  TimeoutFailure,
  allHandlersFinished,
  condition,
  continueAsNew,
  isCancellation,
  proxyActivities,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import type { Activities } from '../activities/index.js';
import type { ToolActivityInput, ToolActivityResult } from '../activities/tool-request.js';
import { applyTurnBudget, spillFileName, spillRelativePath } from '../core/budget.js';
import type { Envelope } from '../core/envelope.js';
import { abbreviateParams, errorEnvelope, serializeEnvelope } from '../core/envelope.js';
import type { ModelTurn } from '../core/messages.js';
import type { AgentInput, AgentResult, AgentState } from '../core/state.js';
import { addProgress, addUsage, initialState, toResult } from '../core/state.js';
import type { PlannedCall } from '../core/tool-calls.js';
import { normalizeToolCallIds, partition, planToolCalls, toAssistantToolCalls } from '../core/tool-calls.js';
import { systemPrompt } from '../core/transcript.js';
import { createToolRegistry } from '../tools/registry.js';
import { builtinTools } from '../tools/index.js';
import type { AgentStateView } from './messages.js';
import { stateQuery, transcriptQuery } from './messages.js';

/** Calls in one safe batch that run at once (C.3 MAX_TOOL_CONCURRENCY). */
const MAX_TOOL_CONCURRENCY = 4;

const registry = createToolRegistry(builtinTools);

// SDK retries are off in the provider; this policy is the only retry loop for model calls.
const { callModel } = proxyActivities<Activities>({
  startToCloseTimeout: '5 minutes',
  heartbeatTimeout: '30 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: 8 },
});

const { spillOutput } = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { maximumAttempts: 3 },
});

type ToolActivity = (request: ToolActivityInput) => Promise<ToolActivityResult>;

/** Runs a task: model step, tool calls, repeat until the model answers or the step limit is reached. */
export async function agentWorkflow(input: AgentInput): Promise<AgentResult> {
  const state: AgentState =
    input.resume ?? initialState(workflowInfo().workflowId, systemPrompt(input), input.task);

  setHandler(stateQuery, (afterSeq?: number) => view(state, input, afterSeq));
  setHandler(transcriptQuery, () => state.messages);

  try {
    while (state.step < input.maxSteps) {
      if (workflowInfo().continueAsNewSuggested) {
        await condition(allHandlersFinished);
        return await continueAsNew<typeof agentWorkflow>({ ...input, resume: state });
      }
      state.step += 1;
      const turn = await modelStep(state, input);
      if (turn.toolCalls.length === 0) {
        state.messages.push({ role: 'assistant', content: turn.content ?? '' });
        state.answer = turn.content ?? '';
        state.status = 'completed';
        addProgress(state, { kind: 'answer', step: state.step, text: state.answer });
        return toResult(state);
      }
      await toolStep(state, input, turn);
    }
    return fail(state, `Reached the step limit (${input.maxSteps}) before the model finished.`);
  } catch (error) {
    if (isCancellation(error)) {
      state.status = 'cancelled';
      throw error;
    }
    if (error instanceof ApplicationFailure && error.type === 'AgentRunFailed') throw error;
    return fail(state, `Model call failed: ${describeFailure(error)}`);
  }
}

async function modelStep(state: AgentState, input: AgentInput): Promise<ModelTurn> {
  const toolNames = registry.getSchemas({ mode: input.mode }).map((schema) => schema.function.name);
  const started = Date.now();
  const turn = await callModel({ messages: state.messages, toolNames, selection: input.selection, step: state.step });
  addUsage(state, turn.usage);
  const calls = turn.toolCalls.length;
  addProgress(state, {
    kind: 'step',
    step: state.step,
    text: `${turn.model}: ${calls ? `${calls} tool call${calls === 1 ? '' : 's'}` : 'answer'}`,
    ms: Date.now() - started,
  });
  return turn;
}

async function toolStep(state: AgentState, input: AgentInput, turn: ModelTurn): Promise<void> {
  const ids = normalizeToolCallIds(turn.toolCalls, state.step);
  // The assistant message is recorded with the final ids before anything runs (C.3 step 1, C.13).
  state.messages.push({ role: 'assistant', content: turn.content, tool_calls: toAssistantToolCalls(turn.toolCalls, ids) });
  const plans = planToolCalls(turn.toolCalls, ids, {
    resolveName: (raw) => registry.resolveName(raw),
    get: (name) => registry.get(name),
    availableNames: () => registry.getSchemas({ mode: input.mode }).map((schema) => schema.function.name),
  });

  const envelopes: Envelope[] = new Array<Envelope>(plans.length);
  for (const batch of partition(plans)) {
    await forEachWithConcurrency(batch.calls, batch.safe ? MAX_TOOL_CONCURRENCY : 1, async (plan) => {
      envelopes[plan.index] = await executeCall(state, input, plan);
    });
  }

  const budgeted = await budgetTurn(state, input, plans, envelopes);
  budgeted.forEach((envelope, index) => {
    state.messages.push({ role: 'tool', tool_call_id: plans[index]!.callId, content: serializeEnvelope(envelope) });
  });
  state.toolCalls += plans.length;
}

async function executeCall(state: AgentState, input: AgentInput, plan: PlannedCall): Promise<Envelope> {
  const started = Date.now();
  if (plan.state === 'failed') {
    report(state, plan.toolName, plan.envelope, plan.callId, 0);
    return plan.envelope;
  }
  const tool = plan.tool;
  state.lastTool = tool.name;
  const context = {
    tool_call_id: plan.callId,
    cwd: '.',
    params_input: abbreviateParams(plan.paramsInput),
    ...(plan.repairs.length ? { repairs: plan.repairs } : {}),
    ...(plan.ignoredParams.length ? { ignored_params: plan.ignoredParams } : {}),
  };
  if (input.mode === 'read_only' && tool.category !== 'read') {
    const envelope = errorEnvelope({
      code: 'PERMISSION_DENIED',
      message: `${tool.name} is not available in read-only mode.`,
      details: { reason: 'read_only_mode' },
      context,
    });
    report(state, tool.name, envelope, plan.callId, 0);
    return envelope;
  }

  const policy = tool.activity(plan.input);
  const activities = proxyActivities<Activities>({
    startToCloseTimeout: policy.startToCloseTimeoutMs,
    ...(policy.heartbeatTimeoutMs ? { heartbeatTimeout: policy.heartbeatTimeoutMs } : {}),
    retry: { initialInterval: '1 second', maximumAttempts: policy.maximumAttempts },
    summary: tool.summarize(plan.input),
  }) as unknown as Record<string, ToolActivity>;
  const request: ToolActivityInput = {
    taskId: state.taskId,
    turn: state.step,
    index: plan.index,
    callId: plan.callId,
    workspace: input.workspace,
    input: plan.input,
    paramsInput: plan.paramsInput,
    maximumAttempts: policy.maximumAttempts,
    ...(plan.repairs.length ? { repairs: plan.repairs } : {}),
    ...(plan.ignoredParams.length ? { ignoredParams: plan.ignoredParams } : {}),
    ...(usesReadState(tool.name) ? { readState: state.readState } : {}),
  };

  let envelope: Envelope;
  try {
    const result = await activities[tool.name]!(request);
    envelope = result.envelope;
    const update = result.readStateUpdate;
    if (update) {
      if (update.entry) state.readState[update.key] = update.entry;
      else delete state.readState[update.key];
    }
  } catch (error) {
    if (isCancellation(error)) throw error;
    envelope = activityFailureEnvelope(tool.name, policy.startToCloseTimeoutMs, error, context);
  }
  report(state, tool.name, envelope, plan.callId, Date.now() - started);
  return envelope;
}

function usesReadState(toolName: string): boolean {
  return toolName === 'ReadFile' || toolName === 'WriteFile' || toolName === 'EditFile';
}

/** An activity that exhausted its retries becomes an envelope the model can act on; the loop goes on. */
function activityFailureEnvelope(
  toolName: string,
  timeoutMs: number,
  error: unknown,
  context: Envelope['context'],
): Envelope {
  const cause = error instanceof ActivityFailure ? error.cause : error;
  if (cause instanceof TimeoutFailure) {
    if (cause.timeoutType === 'START_TO_CLOSE') {
      return errorEnvelope({
        code: 'TIMEOUT',
        message: `Tool '${toolName}' did not finish within ${timeoutMs} ms.`,
        details: { timeout_type: 'start_to_close' },
        context,
      });
    }
    // A missed heartbeat means the worker running the tool went away mid-call.
    return errorEnvelope({
      code: 'EXECUTION_ERROR',
      message:
        toolName === 'Bash'
          ? 'worker lost during execution; the command may have partially run'
          : `Tool '${toolName}' failed: worker lost during execution.`,
      details: { reason: 'worker_lost' },
      context,
    });
  }
  return errorEnvelope({
    code: 'INTERNAL_ERROR',
    message: `Tool '${toolName}' failed: ${describeFailure(error)}`,
    context,
  });
}

/** C.9 layer 2: keeps one turn's tool messages within MAX_TURN_RESULT_BYTES, largest results first. */
async function budgetTurn(state: AgentState, input: AgentInput, plans: PlannedCall[], envelopes: Envelope[]): Promise<Envelope[]> {
  const toolNameAt = (index: number): string => {
    const plan = plans[index]!;
    return plan.state === 'ready' ? plan.tool.name : plan.toolName;
  };
  const spillName = (index: number): string =>
    spillFileName({ turn: state.step, index, toolName: toolNameAt(index), callId: plans[index]!.callId, suffix: 'result' });
  const { envelopes: budgeted, items } = applyTurnBudget(envelopes, {
    pathFor: (index) => spillRelativePath(state.taskId, spillName(index)),
  });
  // The spill files hold the full results the compressed envelopes point to; written before the model sees them.
  await Promise.all(
    items.map((item) =>
      spillOutput({
        workspace: input.workspace,
        taskId: state.taskId,
        turn: state.step,
        index: item.index,
        toolName: toolNameAt(item.index),
        callId: plans[item.index]!.callId,
        rendered: item.rendered,
      }),
    ),
  );
  return budgeted;
}

function report(state: AgentState, tool: string, envelope: Envelope, callId: string, ms: number): void {
  addProgress(state, {
    kind: 'tool',
    step: state.step,
    tool,
    status: envelope.status === 'error' ? (envelope.error?.code ?? 'error') : envelope.status,
    ms,
    text: summaryOf(envelope) || callId,
    ...(envelope.status === 'error' ? { detail: envelope.text } : {}),
  });
}

function summaryOf(envelope: Envelope): string {
  const params = envelope.context.params_input;
  const first = ['path', 'pattern', 'command'].map((key) => params[key]).find((value) => typeof value === 'string');
  if (typeof first !== 'string') return '';
  const single = first.replace(/\s+/g, ' ');
  return single.length > 60 ? `${single.slice(0, 59)}…` : single;
}

function fail(state: AgentState, message: string): never {
  state.status = 'failed';
  state.error = message;
  addProgress(state, { kind: 'error', step: state.step, text: message });
  throw ApplicationFailure.create({ type: 'AgentRunFailed', message, nonRetryable: true, details: [toResult(state)] });
}

function describeFailure(error: unknown): string {
  if (error instanceof ActivityFailure && error.cause) return error.cause.message;
  return error instanceof Error ? error.message : String(error);
}

function view(state: AgentState, input: AgentInput, afterSeq = 0): AgentStateView {
  return {
    taskId: state.taskId,
    status: state.status,
    step: state.step,
    maxSteps: input.maxSteps,
    toolCalls: state.toolCalls,
    usage: state.usage,
    answer: state.answer ?? null,
    ...(state.error ? { error: state.error } : {}),
    ...(state.lastTool ? { lastTool: state.lastTool } : {}),
    progress: state.progress.filter((entry) => entry.seq > afterSeq),
    pendingApprovals: [],
    breakers: {},
  };
}

/** A bounded pool: at most `limit` calls in flight; results are placed by index, so completion order never matters. */
async function forEachWithConcurrency<T>(items: T[], limit: number, run: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const lanes = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const item = items[next++]!;
      await run(item);
    }
  });
  await Promise.all(lanes);
}
