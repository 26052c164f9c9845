// Workflow-safe: the input and result of the applyOutputBudget activity (docs/tools.md §9 layer 2): one step's tool
// messages by key, and the ones it compressed and spilled because together they were more than the step's output
// budget.
import type { ContentKey } from './content-key.js';
import type { ToolOutcome } from './tool-outcome.js';
import type { MessageRef, PendingWrites } from './transcript-ref.js';

/** Why a result was compressed; also the `tool_result_budget_item` event's reason. */
export type OutputBudgetReason = 'single_tool_budget' | 'aggregate_budget';

/** Input of the `applyOutputBudget` activity: one step's tool messages by key, in request order. */
export interface ApplyOutputBudgetInput {
  workspace: string;
  taskId: string;
  /** The step (named `turn`, as in every tool activity's input and spill file name). */
  turn: number;
  /** Workflow-made messages among them, not stored yet. */
  writes?: PendingWrites;
  results: { key: ContentKey; compressed: boolean; toolName: string; callId: string }[];
}

/** The results layer 2 replaced, with what the `tool_result_budget_item` event records. */
export interface ApplyOutputBudgetResult {
  items: {
    index: number;
    message: MessageRef;
    outcome: ToolOutcome;
    event: { reason: OutputBudgetReason; raw_bytes: number; visible_bytes: number };
  }[];
}
