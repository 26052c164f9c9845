// Workflow-safe: the run's rules between steps — when to continue as new, when to compact, which model to call after
// which failure, what a model turn and a compaction record, how a run ends. The workflow only does the awaits.
import { ActivityFailure, ApplicationFailure } from '@temporalio/common';
import { ACTIVITY } from '../../protocol/activity-names.js';
import { DEFAULT_PRICE_TABLE } from '../price-table.js';
import type { PriceTable } from '../price-table.js';
import { HISTORY_FORMAT } from '../../protocol/model.js';
import type { ModelRequest, ModelSelection, ModelTurn, ToolChoice } from '../../protocol/model.js';
import type { AgentInput, AgentState } from '../state.js';
import { addEvent, addProgress, addUsage } from '../state.js';
import type { PendingWrites } from '../../protocol/transcript-ref.js';
import { appendMessages, workflowMessage } from '../../protocol/transcript-ref.js';
import { offeredToolNames, stepToolChoice } from './tool-choice.js';
import { requestBegunAt } from './session.js';
import type { ToolSelectionRecord } from '../../protocol/model.js';
import { noteTurn } from '../tool-selection/select-tools.js';

/** Transcript size (estimated tokens) at which older turns are summarised, when the run does not say. */
export const DEFAULT_COMPACT_AT_TOKENS = 96_000;

/**
 * Continue-as-new is decided on steps taken in this run (`firstStep`), never on the step it resumed at: when Temporal
 * suggests it, or every N steps when the run says so.
 */
export function shouldContinueAsNew(
  state: AgentState,
  input: AgentInput,
  firstStep: number,
  suggested: boolean,
): boolean {
  if (state.step === firstStep) return false;
  if (suggested) return true;
  const every = input.continueAsNewEverySteps;
  return every !== undefined && every > 0 && state.step % every === 0;
}

/** The transcript is near the context budget: summarise its older turns before the next model call. */
export function needsCompaction(state: AgentState, input: AgentInput): boolean {
  return state.transcript.tokens >= (input.compactAtTokens ?? DEFAULT_COMPACT_AT_TOKENS);
}

/** The run's model chain: its selection, then each fallback over it. */
export function modelChain(input: AgentInput): ModelSelection[] {
  return [
    input.selection,
    ...(input.fallbackSelections ?? []).map((fallback) => ({ ...input.selection, ...fallback })),
  ];
}

/**
 * The request of a step's model call: the transcript by key, what the workflow made since, the tools' names, the
 * step's tool choice (core/run/tool-choice; `auto` is the default and left out) and a structured run's schema. A run
 * with a profile names it, and a step whose tools were selected says how (for `history`; the activity ignores both).
 */
export function modelRequest(
  state: AgentState,
  input: AgentInput,
  selection: ModelSelection,
  toolNames: string[],
  writes: PendingWrites,
  toolSelection?: ToolSelectionRecord,
): ModelRequest {
  // The bench's inline-transcript comparison sends the whole transcript with every call, as a design without the store.
  const inline = input.inlineTranscript ? { messages: state.inlineMessages ?? [], echoTranscript: true } : {};
  const toolChoice: ToolChoice = stepToolChoice(state, input, offeredToolNames(input, toolNames));
  const request = requestBegunAt(state, state.step);
  return {
    format: HISTORY_FORMAT,
    transcript: state.transcript,
    writes,
    toolNames,
    ...(state.mcp ? { mcpCatalog: state.mcp.catalog } : {}),
    selection,
    step: state.step,
    ...(toolChoice !== 'auto' ? { toolChoice } : {}),
    ...(input.outputSchema ? { outputSchema: input.outputSchema } : {}),
    ...(state.profile ? { profile: state.profile.name } : {}),
    ...(toolSelection ? { toolSelection } : {}),
    ...(request ? { request: { n: request.n, text: request.text } } : {}),
    ...inline,
  };
}

/** The summarising call of a compaction, and its label in the Web UI. */
export function compactionRequest(
  state: AgentState,
  input: AgentInput,
  writes: PendingWrites,
): { request: ModelRequest; summary: string } {
  return {
    request: {
      format: HISTORY_FORMAT,
      transcript: state.transcript,
      writes,
      toolNames: [],
      selection: input.selection,
      step: state.step,
      purpose: 'compaction',
    },
    summary: `callModel compaction: summarise the older part of ${state.transcript.messages} messages (~${state.transcript.tokens} tokens)`,
  };
}

/**
 * The message a run fails with for an error that reached the top of the workflow: an activity that failed for good
 * ends the run ("Model call failed: …"). Anything else is a bug in workflow code: undefined, and the workflow rethrows
 * it, so Temporal fails the workflow task and retries it — the run resumes once fixed code is deployed.
 */
export function runEndingFailure(error: unknown): string | undefined {
  if (!(error instanceof ActivityFailure)) return undefined;
  const what = error.activityType === ACTIVITY.callModel ? 'Model call' : `Activity ${error.activityType}`;
  return `${what} failed: ${describeFailure(error)}`;
}

/** A failure as one line: an activity's own cause rather than Temporal's wrapper. */
export function describeFailure(error: unknown): string {
  if (error instanceof ActivityFailure && error.cause) return error.cause.message;
  return error instanceof Error ? error.message : String(error);
}

/** The failure type a model call ends with when the provider rejected the request as too long for the model. */
export const CONTEXT_LENGTH_EXCEEDED = 'ModelInvocationError.ContextLengthExceeded';

/**
 * What a model call that failed for good leads to: a request too long for the model compacts the transcript and is
 * made again (once a step); otherwise the next model of the chain, and when there is none the run fails.
 */
export function afterModelFailure(
  error: unknown,
  context: { compactedThisStep: boolean; hasNextModel: boolean },
): 'compact' | 'next_model' | 'fail' {
  const cause = error instanceof ActivityFailure ? error.cause : error;
  if (cause instanceof ApplicationFailure && cause.type === CONTEXT_LENGTH_EXCEEDED && !context.compactedThisStep)
    return 'compact';
  return context.hasNextModel ? 'next_model' : 'fail';
}

/** A model failed for good; the same request goes to `next`, and the run says so. */
export function recordModelFallback(
  state: AgentState,
  from: ModelSelection,
  next: ModelSelection,
  reason: string,
  now: number,
): void {
  addEvent(state, 'model_fallback', now, { from: from.model ?? null, to: next.model ?? null, reason });
  addProgress(state, {
    kind: 'error',
    step: state.step,
    text: `${from.model ?? 'model'} failed (${reason}); falling back to ${next.model ?? 'the next endpoint'}`,
  });
}

/** The prices the run's costs are computed with: the defaults, overridden by the run's own. */
export function priceTable(input: AgentInput): PriceTable {
  return input.prices ? { ...DEFAULT_PRICE_TABLE, ...input.prices } : DEFAULT_PRICE_TABLE;
}

/** A model turn's usage and its progress line ("gpt-4.1: 2 tool calls"). */
export function recordModelTurn(state: AgentState, input: AgentInput, turn: ModelTurn, ms: number): void {
  if (turn.transcriptTail) state.inlineMessages = [...(state.inlineMessages ?? []), ...turn.transcriptTail];
  // A run selecting its tools ranks the next steps on what the model just said and did, not on the task alone.
  if (state.toolSelection)
    noteTurn(
      state.toolSelection,
      turn.content,
      turn.toolCalls.map((call) => call.name ?? ''),
    );
  addUsage(state, turn.usage, turn.model, turn.attempt ?? 1, priceTable(input));
  const calls = turn.toolCalls.length;
  addProgress(state, {
    kind: 'step',
    step: state.step,
    text: `${turn.model}: ${calls ? `${calls} tool call${calls === 1 ? '' : 's'}` : 'answer'}`,
    ms,
  });
}

/**
 * A compaction call's result: nothing old enough (no model was called), nothing usable (the full transcript is kept
 * rather than lost), or the shorter transcript, which the run takes from here on.
 */
export function recordCompaction(
  state: AgentState,
  input: AgentInput,
  summary: ModelTurn,
  ms: number,
  now: number,
): void {
  if (summary.skipped) return;
  addUsage(state, summary.usage, summary.model, summary.attempt ?? 1, priceTable(input));
  const compacted = summary.compacted;
  if (!compacted) return;
  state.transcript = compacted.transcript;
  state.inlineMessages = undefined; // the inline comparison holds the compacted transcript from the next call on
  addEvent(state, 'transcript_compacted', now, {
    summarised_messages: compacted.summarisedMessages,
    tokens_before: compacted.tokensBefore,
    tokens_after: compacted.tokensAfter,
  });
  addProgress(state, {
    kind: 'step',
    step: state.step,
    text: `compacted ${compacted.summarisedMessages} older messages (~${compacted.tokensBefore} → ~${compacted.tokensAfter} tokens)`,
    ms,
  });
}

/** The model answered without tool calls: the answer joins the transcript and the run is complete. */
export function completeWithAnswer(state: AgentState, content: string | null): void {
  const answer = workflowMessage({ role: 'assistant', content: content ?? '' }, state.pendingWrites);
  state.transcript = appendMessages(state.transcript, [{ ...answer, role: 'assistant' }], state.pendingWrites);
  state.answer = content ?? '';
  state.status = 'completed';
  addProgress(state, { kind: 'answer', step: state.step, text: state.answer });
}

/**
 * This run hands the task on to a new run (continue-as-new): it ends `continued`, and the state it passes on runs on,
 * with a progress line so a follower sees the hand-over.
 */
export function continueRun(state: AgentState): AgentState {
  state.runs += 1;
  state.status = 'continued';
  addProgress(state, {
    kind: 'continued',
    step: state.step,
    text: `continued as new after step ${state.step} (run ${state.runs + 1} of the task)`,
  });
  return { ...state, status: 'running' };
}

/** The run fails with `message` (the workflow turns it into a non-retryable failure carrying the result). */
export function markFailed(state: AgentState, message: string): void {
  state.status = 'failed';
  state.error = message;
  addProgress(state, { kind: 'error', step: state.step, text: message });
}
