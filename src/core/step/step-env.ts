// Workflow-safe: what the rules of one step read and change (the task's state, in place; the run's input; the task's
// tools), and what one tool call leaves for the step: its tool message and the summary the workflow decides on.
import type { ToolRegistry } from '../../tools/define-tool.js';
import type { AgentInput, AgentState } from '../state.js';
import type { ToolOutcome } from '../../protocol/tool-outcome.js';
import type { MessageRef } from '../../protocol/transcript-ref.js';

/** What the rules read: the task's state (changed in place), the run's input and the task's tools. */
export interface StepEnv {
  state: AgentState;
  input: AgentInput;
  registry: ToolRegistry;
}

/** A call's result: its tool message (stored, or waiting to be) and the summary the workflow decides on. */
export interface ToolResult {
  message: MessageRef;
  outcome: ToolOutcome;
}
