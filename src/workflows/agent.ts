// Sandboxed and deterministic: the ReAct loop as a Temporal workflow, one iteration per step.
// Decisions come from core/ (pure); every side effect is an activity; time and ids come from Temporal's APIs.
import {
  ActivityFailure,
  ApplicationFailure,
  ContinueAsNew,
  allHandlersFinished,
  condition,
  continueAsNew,
  isCancellation,
  setCurrentDetails,
  setHandler,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import { DEFAULT_PRICE_TABLE } from '../core/price-table.js';
import { estimateNextCall, formatUsd, wouldExceedBudget } from '../core/pricing.js';
import { AGENT_SEARCH_ATTRIBUTES } from './search-attributes.js';
import type { ModelTurn } from '../core/messages.js';
import type { AgentInput, AgentResult, AgentState } from '../core/state.js';
import { addEvent, addProgress, addUsage, initialState, toResult } from '../core/state.js';
import { referencedKeys } from '../core/content-key.js';
import { systemPrompt } from '../core/transcript.js';
import { appendMessages, takeWrites, workflowMessage } from '../core/transcript-ref.js';
import { builtinTools, toolSearch } from '../tools/index.js';
import { createToolRegistry } from '../tools/registry.js';
import type { ToolRegistry } from '../tools/registry.js';
import { callModel, listFunctionTools, storeContent } from './activities.js';
import { ApprovalBook } from './approvals.js';
import type { AgentStateView, BreakerView } from './messages.js';
import { stateQuery, storeRootsQuery, transcriptQuery } from './messages.js';
import type { TurnContext } from './tool-step.js';
import { runToolTurn, visibleToolNames } from './tool-step.js';

/** Runs a task: model step, tool calls, repeat until the model answers or the step limit is reached. */
export async function agentWorkflow(input: AgentInput): Promise<AgentResult> {
  const state: AgentState = input.resume ?? initialState(workflowInfo().workflowId, systemPrompt(input), input.task);
  const approvals = new ApprovalBook();
  approvals.install();
  setHandler(stateQuery, (afterSeq?: number) => view(state, input, approvals, afterSeq));
  setHandler(transcriptQuery, () => state.transcript);
  // Content not stored yet is no root: it is not in the store to keep.
  setHandler(storeRootsQuery, () => referencedKeys(JSON.stringify({ ...state, pendingWrites: {} })));
  // Continue-as-new is decided on steps taken in this run, never on the step the run resumed at.
  const firstStep = state.step;

  try {
    // The worker's function tools are recorded once per task, so every replay and continuation sees the same tools.
    if (!input.resume) state.functionTools = await listFunctionTools();
    const registry = taskRegistry(state);
    const turnContext: TurnContext = { state, input, registry, approvals, publish: createPublisher(state, input, approvals) };
    if (!input.resume) state.budget = { ...(input.budgetUsd !== undefined ? { budgetUsd: input.budgetUsd } : {}), ...(input.maxTokens !== undefined ? { maxTokens: input.maxTokens } : {}) };

    while (state.step < input.maxSteps) {
      if (shouldContinueAsNew(state, input, firstStep)) {
        await condition(allHandlersFinished);
        state.runs += 1;
        return await continueAsNew<typeof agentWorkflow>({ ...input, resume: state });
      }
      // Checked here so that a step without a budget or a long transcript awaits nothing: every promise made in
      // workflow code has its stack captured by the SDK, which is most of what a step costs to replay.
      if (state.budget.budgetUsd !== undefined || state.budget.maxTokens !== undefined) await checkBudget(turnContext);
      if (state.transcript.tokens >= (input.compactAtTokens ?? DEFAULT_COMPACT_AT_TOKENS)) await compactIfNeeded(turnContext);
      state.step += 1;
      turnContext.publish();
      const turn = await modelStep(turnContext);
      if (turn.toolCalls.length === 0) {
        const answer = workflowMessage({ role: 'assistant', content: turn.content ?? '' }, state.pendingWrites);
        state.transcript = appendMessages(state.transcript, [{ ...answer, role: 'assistant' }], state.pendingWrites);
        await flushWrites(state);
        state.answer = turn.content ?? '';
        state.status = 'completed';
        addProgress(state, { kind: 'answer', step: state.step, text: state.answer });
        turnContext.publish();
        return toResult(state);
      }
      // Published with the next step's start: one search-attribute upsert a step.
      await runToolTurn(turnContext, turn);
    }
    await flushWrites(state);
    return fail(state, `Reached the step limit (${input.maxSteps}) before the model finished.`);
  } catch (error) {
    if (isCancellation(error)) {
      state.status = 'cancelled';
      createPublisher(state, input, approvals)();
      throw error;
    }
    if (error instanceof ContinueAsNew) throw error;
    if (error instanceof ApplicationFailure && error.type === 'AgentRunFailed') throw error;
    return fail(state, `Model call failed: ${describeFailure(error)}`);
  }
}

/** The task's tools: the built-ins, ToolSearch, and the worker's function tools recorded at the start. */
function taskRegistry(state: AgentState): ToolRegistry {
  const registry = createToolRegistry([...builtinTools, toolSearch]);
  for (const spec of state.functionTools) registry.registerFunction(spec);
  return registry;
}

/** Stores what the last step made, so a finished run's transcript is whole in the store. */
async function flushWrites(state: AgentState): Promise<void> {
  const writes = takeWrites(state);
  if (Object.keys(writes.content).length === 0) return;
  await storeContent(writes.content);
  writes.stored();
}

function shouldContinueAsNew(state: AgentState, input: AgentInput, firstStep: number): boolean {
  if (state.step === firstStep) return false;
  if (workflowInfo().continueAsNewSuggested) return true;
  const every = input.continueAsNewEverySteps;
  return every !== undefined && every > 0 && state.step % every === 0;
}

async function modelStep(turnContext: TurnContext): Promise<ModelTurn> {
  const { state, input } = turnContext;
  const toolNames = visibleToolNames(turnContext);
  const started = Date.now();
  const turn = await callModelWithFallbacks(turnContext, toolNames);
  addUsage(state, turn.usage, turn.model, turn.attempt ?? 1, priceTable(input));
  const calls = turn.toolCalls.length;
  addProgress(state, {
    kind: 'step',
    step: state.step,
    text: `${turn.model}: ${calls ? `${calls} tool call${calls === 1 ? '' : 's'}` : 'answer'}`,
    ms: Date.now() - started,
  });
  return turn;
}

/**
 * The model's fallback chain: when a model call fails for good (its retries exhausted, or a non-retryable error such as
 * an unknown model), the same request goes to the next selection of the run's chain, and the run goes on.
 */
async function callModelWithFallbacks(turnContext: TurnContext, toolNames: string[]): Promise<ModelTurn> {
  const { state, input } = turnContext;
  const chain = [input.selection, ...(input.fallbackSelections ?? []).map((fallback) => ({ ...input.selection, ...fallback }))];
  for (const [index, selection] of chain.entries()) {
    const writes = takeWrites(state);
    const inline = input.inlineTranscript ? { messages: state.inlineMessages ?? [], echoTranscript: true } : {};
    try {
      const turn = await callModel({ transcript: state.transcript, writes: writes.content, toolNames, selection, step: state.step, ...inline });
      writes.stored();
      if (turn.transcriptTail) state.inlineMessages = [...(state.inlineMessages ?? []), ...turn.transcriptTail];
      return turn;
    } catch (error) {
      const next = chain[index + 1];
      if (isCancellation(error) || !next) throw error;
      const reason = describeFailure(error);
      addEvent(state, 'model_fallback', Date.now(), { from: selection.model ?? null, to: next.model ?? null, reason });
      addProgress(state, { kind: 'error', step: state.step, text: `${selection.model ?? 'model'} failed (${reason}); falling back to ${next.model ?? 'the next endpoint'}` });
    }
  }
  throw new Error('unreachable: the model chain is never empty');
}

/** Transcript size (estimated tokens) at which older turns are summarised, when the run does not say. */
const DEFAULT_COMPACT_AT_TOKENS = 96_000;

/**
 * Summarises the older turns with a model call (an activity) when the transcript nears the context budget. The activity
 * reads the transcript, plans the cut (core/compaction) and stores the shorter transcript; the workflow takes its key.
 */
async function compactIfNeeded(turnContext: TurnContext): Promise<void> {
  const { state, input } = turnContext;
  const before = state.transcript.tokens;
  if (before < (input.compactAtTokens ?? DEFAULT_COMPACT_AT_TOKENS)) return;
  const started = Date.now();
  const writes = takeWrites(state);
  const summary = await callModel(
    { transcript: state.transcript, writes: writes.content, toolNames: [], selection: input.selection, step: state.step, purpose: 'compaction' },
    `callModel compaction: summarise the older part of ${state.transcript.messages} messages (~${before} tokens)`,
  );
  writes.stored();
  if (summary.skipped) return; // nothing old enough to summarise: no model call was made
  addUsage(state, summary.usage, summary.model, summary.attempt ?? 1, priceTable(input));
  const compacted = summary.compacted;
  if (!compacted) return; // nothing usable: keep the full transcript rather than lose it
  state.transcript = compacted.transcript;
  state.inlineMessages = undefined; // the inline comparison holds the compacted transcript from the next call on
  addEvent(state, 'transcript_compacted', Date.now(), {
    summarised_messages: compacted.summarisedMessages,
    tokens_before: compacted.tokensBefore,
    tokens_after: compacted.tokensAfter,
  });
  addProgress(state, {
    kind: 'step',
    step: state.step,
    text: `compacted ${compacted.summarisedMessages} older messages (~${compacted.tokensBefore} → ~${compacted.tokensAfter} tokens)`,
    ms: Date.now() - started,
  });
}

function priceTable(input: AgentInput) {
  return input.prices ? { ...DEFAULT_PRICE_TABLE, ...input.prices } : DEFAULT_PRICE_TABLE;
}

/**
 * Before a step: would the next model call push the task over its budget? Then ask an operator (approval extends the
 * budget by its original amount) or stop, mid-run, before the money is spent.
 */
async function checkBudget(turnContext: TurnContext): Promise<void> {
  const { state, input, approvals } = turnContext;
  if (state.budget.budgetUsd === undefined && state.budget.maxTokens === undefined) return;
  const next = estimateNextCall(state.usage, {
    growthTokens: state.usage.modelCalls === 0 ? state.transcript.tokens + 2_000 : state.transcript.tailTokens,
    model: state.model ?? input.selection.model ?? 'unknown',
    table: priceTable(input),
  });
  const check = wouldExceedBudget(state.usage, next, state.budget);
  if (!check.exceeded) return;
  const ask = input.onBudget !== 'stop' && input.askPolicy !== 'deny';
  if (!ask) fail(state, `Stopped before step ${state.step + 1}: ${check.message}`);
  let approved = input.askPolicy === 'approve';
  if (!approved) {
    state.status = 'waiting_approval';
    turnContext.publish();
    const decision = await approvals.request(
      { callId: `budget-step-${state.step + 1}`, tool: 'callModel', level: 'budget', reason: check.message, requestedAt: Date.now() },
      input.askTimeoutMs ?? 600_000,
    );
    state.status = 'running';
    approved = decision.decision === 'approve';
  }
  if (!approved) fail(state, `Stopped before step ${state.step + 1}: ${check.message} (not approved)`);
  state.budget = {
    ...(state.budget.budgetUsd !== undefined ? { budgetUsd: state.budget.budgetUsd + (input.budgetUsd ?? 0) } : {}),
    ...(state.budget.maxTokens !== undefined ? { maxTokens: state.budget.maxTokens + (input.maxTokens ?? 0) } : {}),
  };
  addProgress(state, { kind: 'step', step: state.step, text: `budget extended to ${budgetText(state)}` });
}

function budgetText(state: AgentState): string {
  const parts = [];
  if (state.budget.budgetUsd !== undefined) parts.push(formatUsd(state.budget.budgetUsd));
  if (state.budget.maxTokens !== undefined) parts.push(`${state.budget.maxTokens} tokens`);
  return parts.join(' / ');
}

/**
 * Keeps the run findable and readable in the Web UI: the current details line, and the search attributes, each written
 * only when what it shows changed (a search-attribute upsert is a history event and a visibility write).
 */
function createPublisher(state: AgentState, input: AgentInput, approvals: ApprovalBook): () => void {
  let lastDetails = '';
  let lastAttributes = '';
  return () => {
    const pending = approvals.list();
    const model = state.model ?? input.selection.model;
    const details = [
      `**step** ${state.step} of ${input.maxSteps} · **status** ${state.status}`,
      `**last tool** ${state.lastTool ?? '—'} · **tool calls** ${state.toolCalls}`,
      `**pending approvals** ${pending.length ? pending.map((item) => `${item.callId} (${item.tool}: ${item.reason})`).join(', ') : 'none'}`,
      `**cost** ${formatUsd(state.usage.costUsd)} · **tokens** ${state.usage.totalTokens}`,
    ].join('\n\n');
    if (details !== lastDetails) setCurrentDetails(details);
    lastDetails = details;
    if (!input.searchAttributes) return;
    const attributes = [
      { key: AGENT_SEARCH_ATTRIBUTES.status, value: state.status },
      { key: AGENT_SEARCH_ATTRIBUTES.step, value: state.step },
      { key: AGENT_SEARCH_ATTRIBUTES.pendingApprovals, value: pending.length },
      { key: AGENT_SEARCH_ATTRIBUTES.costUsd, value: state.usage.costUsd },
      ...(model ? [{ key: AGENT_SEARCH_ATTRIBUTES.model, value: model }] : []),
    ];
    const snapshot = JSON.stringify(attributes.map((attribute) => attribute.value));
    if (snapshot === lastAttributes) return;
    lastAttributes = snapshot;
    upsertSearchAttributes(attributes);
  };
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

function view(state: AgentState, input: AgentInput, approvals: ApprovalBook, afterSeq = 0): AgentStateView {
  const breakers: Record<string, BreakerView> = {};
  for (const [name, breaker] of Object.entries(state.breakers)) {
    breakers[name] = {
      state: breaker.state,
      failures: breaker.failures,
      ...(breaker.opened_at !== undefined ? { openedAt: breaker.opened_at } : {}),
      ...(breaker.last_error !== undefined ? { lastError: breaker.last_error } : {}),
    };
  }
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
    pendingApprovals: approvals.list(),
    breakers,
  };
}
