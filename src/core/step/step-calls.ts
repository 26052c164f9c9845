// Workflow-safe: one step's tool calls (docs/tools.md §3 steps 1-8), as the model's turn asked for them, around the
// per-call machine of call.ts: ids and the assistant message first, the plan and its batches, then — once every call
// is done — the step's output budget (§9 layer 2) and the transcript.
import type { ApplyOutputBudgetResult } from '../../protocol/output-budget.js';
import { MAX_STEP_RESULT_BYTES } from '../output-budget.js';
import type { ModelTurn } from '../../protocol/model.js';
import { addEvent } from '../state.js';
import type { Batch, ExecutablePlan, PlannedCall } from '../tool-calls.js';
import { normalizeToolCallIds, partition, planToolCalls, toAssistantToolCalls } from '../tool-calls.js';
import type { MessageRef } from '../../protocol/transcript-ref.js';
import { appendMessages, workflowMessage } from '../../protocol/transcript-ref.js';
import type { ToolResult, StepEnv } from './step-env.js';
import { toolNameOf, workflowResult } from './call-records.js';
import { errorEnvelope, okEnvelope } from '../../protocol/envelope.js';
import { isFinalResultCall } from '../final-result.js';
import { invalidResultPlan } from '../run/tool-choice.js';
import { noteCalls } from '../tool-selection/select-tools.js';
import { shownToolNames } from '../tool-selection/step-tools.js';

/** How many safe calls of a batch run at once when the run does not say. */
export const DEFAULT_MAX_TOOL_CONCURRENCY = 4;

/** A step's planned calls: the assistant message (recorded with the final ids before anything runs) and the batches. */
export interface PlannedStepCalls {
  assistant: MessageRef;
  plans: PlannedCall[];
  /** Each batch with how many of its calls run at once (1: one after the other). */
  batches: (Batch & { concurrency: number })[];
}

/** §3 steps 1-4: ids, the assistant message, resolution, validation and repair, and the batches to run. */
export function planStepCalls(env: StepEnv, turn: ModelTurn, now: number): PlannedStepCalls {
  const { state, input, registry } = env;
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
  const discovered = new Set(state.discovered);
  const check = turn.finalResult;
  const plans = planToolCalls(turn.toolCalls, ids, {
    resolveName: (raw) => registry.resolveName(raw),
    get: (name) => registry.get(name),
    availableNames: () => shownToolNames(env, now),
    isUndiscovered: (name) => registry.get(name)?.shouldDefer === true && !discovered.has(name),
  }).map((plan) =>
    // The final tool is not in the registry: its calls were checked by the model activity, and answer with that.
    check && !check.valid && isFinalResultCall(turn.toolCalls[plan.index]?.name)
      ? invalidResultPlan(plan, check.errors)
      : plan,
  );
  // Tools just called stay listed for the next few steps of a run that selects its tools.
  if (state.toolSelection)
    noteCalls(
      state.toolSelection,
      plans.map(toolNameOf).filter((name) => registry.get(name) !== undefined),
      state.step,
    );
  // A duplicate is answered from its original once the batches are done (answerDuplicates).
  const batches = partition(plans.filter((plan): plan is ExecutablePlan => plan.state !== 'duplicate'));
  addEvent(state, 'tool_orchestration_plan', now, {
    batches: batches.map((batch) => ({
      concurrency_safe: batch.safe,
      tool_names: batch.calls.map(toolNameOf),
      tool_call_ids: batch.calls.map((plan) => plan.callId),
    })),
  });
  for (const plan of plans) {
    const repairs = plan.state === 'failed' ? plan.envelope.context.repairs : plan.repairs;
    if (repairs?.length) addEvent(state, 'argument_repair', now, { tool_call_id: plan.callId, repairs });
  }
  const limit = Math.max(1, input.maxToolConcurrency ?? DEFAULT_MAX_TOOL_CONCURRENCY);
  return {
    assistant,
    plans,
    batches: batches.map((batch) => ({ ...batch, concurrency: batch.safe ? Math.min(limit, batch.calls.length) : 1 })),
  };
}

/** Trace events around a batch (§3 step 5). */
export function batchStarted(
  env: StepEnv,
  number: number,
  batch: PlannedStepCalls['batches'][number],
  now: number,
): void {
  addEvent(env.state, 'tool_batch_start', now, {
    batch: number,
    size: batch.calls.length,
    concurrency_safe: batch.safe,
  });
}

export function batchEnded(env: StepEnv, number: number, now: number): void {
  addEvent(env.state, 'tool_batch_end', now, { batch: number });
}

/**
 * §9 layer 2: the workflow only sees sizes. When one step's results add up to more than MAX_STEP_RESULT_BYTES, the
 * `applyOutputBudget` activity compresses and spills the largest; this is its input, or undefined when they fit.
 */
export function outputBudgetRequest(env: StepEnv, plans: PlannedCall[], results: ToolResult[]) {
  const total = results.reduce((sum, result) => sum + result.outcome.bytes, 0);
  if (total <= MAX_STEP_RESULT_BYTES) return undefined;
  return {
    summary: `applyOutputBudget step ${env.state.step} (${results.length} results, ${total} bytes)`,
    request: {
      workspace: env.input.workspace,
      taskId: env.state.taskId,
      turn: env.state.step,
      results: results.map((result, index) => ({
        key: result.message.key,
        compressed: result.outcome.compressed,
        toolName: toolNameOf(plans[index]!),
        callId: plans[index]!.callId,
      })),
    },
  };
}

/** The budgeted results in place of the originals, each change traced. */
export function withBudgetedResults(
  env: StepEnv,
  plans: PlannedCall[],
  results: ToolResult[],
  budgeted: ApplyOutputBudgetResult,
  now: number,
): ToolResult[] {
  const next = [...results];
  for (const item of budgeted.items) {
    addEvent(env.state, 'tool_result_budget_item', now, { tool_call_id: plans[item.index]!.callId, ...item.event });
    next[item.index] = { message: item.message, outcome: item.outcome };
  }
  return next;
}

/**
 * Exact duplicates (same id, tool and arguments) ran once: each is answered with a note pointing at the original's
 * result, with the original's status, so the model sees every call answered and nothing ran twice.
 */
export function answerDuplicates(env: StepEnv, turn: PlannedStepCalls, results: ToolResult[], now: number): void {
  for (const plan of turn.plans) {
    if (plan.state !== 'duplicate') continue;
    const original = turn.plans[plan.duplicateOf]!;
    const outcome = results[plan.duplicateOf]!.outcome;
    const context = {
      tool_call_id: plan.callId,
      cwd: '.',
      params_input: {},
      ...(plan.repairs.length ? { repairs: plan.repairs } : {}),
    };
    const text = `The same ${plan.toolName} call as ${original.callId} (same arguments, same turn): not run again; its result is ${original.callId}'s.`;
    const envelope =
      outcome.status === 'error'
        ? errorEnvelope({
            code: outcome.error?.code ?? 'INTERNAL_ERROR',
            message: `${text} It failed: ${outcome.error?.message ?? outcome.text}`,
            details: { duplicate_of: original.callId },
            context,
          })
        : { ...okEnvelope({ data: { duplicate_of: original.callId }, text, context }), status: outcome.status };
    addEvent(env.state, 'tool_lifecycle', now, {
      tool_call_id: plan.callId,
      tool_name: plan.toolName,
      status: 'duplicate',
      duplicate_of: original.callId,
    });
    results[plan.index] = workflowResult(env, plan.callId, envelope);
  }
}

/** §3 step 8: the assistant message and one tool message per call, in request order, join the transcript. */
export function endStepCalls(env: StepEnv, turn: PlannedStepCalls, results: ToolResult[]): void {
  const { state } = env;
  state.transcript = appendMessages(
    state.transcript,
    [
      { ...turn.assistant, role: 'assistant' },
      ...results.map((result) => ({ ...result.message, role: 'tool' as const })),
    ],
    state.pendingWrites,
  );
  state.toolCalls += turn.plans.length;
}
