// Workflow-safe: which tools the model may call at each step, and what a structured run (`outputSchema`) does with a
// model turn. Decided from the run's input, its state and the model activity's results only.
import type { EnvelopeContext } from '../../protocol/envelope.js';
import { errorEnvelope, okEnvelope, serializeEnvelope } from '../../protocol/envelope.js';
import { FINAL_RESULT_TOOL, isFinalResultCall, MAX_RESULT_REPAIRS } from '../final-result.js';
import type { ModelTurn, ToolChoice } from '../../protocol/model.js';
import type { AgentInput, AgentState } from '../state.js';
import { addProgress } from '../state.js';
import { stepLimit } from './session.js';
import type { PlannedCall } from '../tool-calls.js';
import { normalizeToolCallIds, toAssistantToolCalls } from '../tool-calls.js';
import type { MessageRef } from '../../protocol/transcript-ref.js';
import { appendMessages, workflowMessage } from '../../protocol/transcript-ref.js';

/** The tool names a step offers: the registry's visible tools, and the final tool of a structured run. */
export function offeredToolNames(input: AgentInput, visible: readonly string[]): string[] {
  return input.outputSchema ? [...visible, FINAL_RESULT_TOOL] : [...visible];
}

/**
 * The tool choice of the step being taken (`state.step` already counts it). A structured run must call its final tool
 * on its last allowed step, after a step that should have and did not, and whenever the run allows no other tool
 * (`none`). A run without a schema answers on its last step (`none`), so reaching the limit ends with the model's
 * answer rather than with tool calls nobody will run. Otherwise the run's own choice; one naming a tool not offered
 * this step (its breaker is open, the mode hides it) becomes `required`, as APIs reject a choice of a tool not sent.
 */
export function stepToolChoice(state: AgentState, input: AgentInput, offered: readonly string[]): ToolChoice {
  const lastStep = state.step >= stepLimit(state, input);
  if (input.outputSchema) {
    if (lastStep || state.mustCallFinalResult || input.toolChoice === 'none') return { name: FINAL_RESULT_TOOL };
  } else if (lastStep) return 'none';
  const choice = input.toolChoice ?? 'auto';
  if (typeof choice === 'object' && !offered.includes(choice.name)) return 'required';
  return choice;
}

/** What the run does after a model turn. */
export type TurnOutcome =
  /** A run without a schema: the model answered, and the run completes with the answer. */
  | { kind: 'answer' }
  /** The final tool's arguments matched the schema: the run completes with them. */
  | { kind: 'result'; value: unknown }
  /** The model answered in text: the answer is kept and the next step must call the final tool. */
  | { kind: 'text' }
  /** Tool calls to run (an invalid final result among them is answered with its violations, and repaired next). */
  | { kind: 'tools' }
  | { kind: 'fail'; message: string };

/** The run's next move after `turn`; a structured run records the repair it starts. */
export function turnOutcome(state: AgentState, input: AgentInput, turn: ModelTurn): TurnOutcome {
  if (!input.outputSchema) return { kind: turn.toolCalls.length === 0 ? 'answer' : 'tools' };
  const check = turn.finalResult;
  const lastStep = state.step >= stepLimit(state, input);
  if (check?.valid) return { kind: 'result', value: check.value };
  if (check) {
    if ((state.resultRepairs ?? 0) >= MAX_RESULT_REPAIRS || lastStep)
      return {
        kind: 'fail',
        message: `The ${FINAL_RESULT_TOOL} result does not match the output schema: ${check.errors.join('; ')}`,
      };
    state.resultRepairs = (state.resultRepairs ?? 0) + 1;
    state.mustCallFinalResult = true;
    return { kind: 'tools' };
  }
  if (turn.toolCalls.length > 0) return { kind: 'tools' };
  if (state.mustCallFinalResult || lastStep)
    return {
      kind: 'fail',
      message: `The model answered in text instead of calling ${FINAL_RESULT_TOOL} with the result.`,
    };
  state.mustCallFinalResult = true;
  return { kind: 'text' };
}

/** The text answer of a structured run joins the transcript, with the reminder the next, forced step answers. */
export function keepTextAnswer(state: AgentState, content: string | null): void {
  const answer = workflowMessage({ role: 'assistant', content: content ?? '' }, state.pendingWrites);
  const reminder = workflowMessage(
    { role: 'user', content: `Call ${FINAL_RESULT_TOOL} with the result to finish the task.` },
    state.pendingWrites,
  );
  state.transcript = appendMessages(
    state.transcript,
    [
      { ...answer, role: 'assistant' },
      { ...reminder, role: 'user' },
    ],
    state.pendingWrites,
  );
  addProgress(state, {
    kind: 'step',
    step: state.step,
    text: `answered in text; ${FINAL_RESULT_TOOL} is required next`,
  });
}

/**
 * The run completes with its structured result. The turn joins the transcript whole: the final call is answered as
 * accepted, any other call of the same turn as not run (the run ends here), so a fork of the run reads a valid transcript.
 */
export function completeWithResult(state: AgentState, turn: ModelTurn, value: unknown): void {
  const ids = normalizeToolCallIds(turn.toolCalls, state.step);
  const assistant = workflowMessage(
    {
      role: 'assistant',
      content: turn.content,
      tool_calls: toAssistantToolCalls(turn.toolCalls, ids),
      ...(turn.providerItems?.length ? { provider_items: turn.providerItems } : {}),
    },
    state.pendingWrites,
  );
  const answers: MessageRef[] = turn.toolCalls.map((call, index) => {
    const context: EnvelopeContext = { tool_call_id: ids[index]!.id, cwd: '.', params_input: {} };
    const envelope = isFinalResultCall(call.name)
      ? okEnvelope({ text: 'Result accepted; the task is complete.', context })
      : errorEnvelope({ code: 'CANCELLED', message: `Not run: the run ended with ${FINAL_RESULT_TOOL}.`, context });
    return workflowMessage(
      { role: 'tool', tool_call_id: ids[index]!.id, content: serializeEnvelope(envelope) },
      state.pendingWrites,
    );
  });
  state.transcript = appendMessages(
    state.transcript,
    [{ ...assistant, role: 'assistant' }, ...answers.map((answer) => ({ ...answer, role: 'tool' as const }))],
    state.pendingWrites,
  );
  state.toolCalls += 1;
  state.result = value;
  state.status = 'completed';
  addProgress(state, { kind: 'answer', step: state.step, text: JSON.stringify(value) });
}

/**
 * An invalid final result is answered like any tool call that failed validation: INVALID_PARAM with the schema's
 * violations, which the model sees in its next (forced) step.
 */
export function invalidResultPlan(plan: PlannedCall, errors: readonly string[]): PlannedCall {
  return {
    state: 'failed',
    index: plan.index,
    callId: plan.callId,
    toolName: FINAL_RESULT_TOOL,
    concurrencySafe: false,
    envelope: errorEnvelope({
      code: 'INVALID_PARAM',
      message: `The result does not match the output schema: ${errors.join('; ')}. Call ${FINAL_RESULT_TOOL} again with corrected arguments.`,
      details: { reason: 'output_schema', violations: [...errors] },
      context: { tool_call_id: plan.callId, cwd: '.', params_input: {} },
    }),
  };
}
