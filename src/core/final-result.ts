// Workflow-safe: the final tool of a structured run (`--output-schema`). Its parameters are the run's JSON Schema; the
// model calls it once with the result. It is not in the tool registry: it runs nothing, and the model activity checks
// its arguments against the schema (workflow code cannot run a JSON Schema validator).
import type { ToolSchema } from '../protocol/model.js';

/** The final tool's name. */
export const FINAL_RESULT_TOOL = 'FinalResult';

/** How many times an invalid result goes back to the model before the run fails. */
export const MAX_RESULT_REPAIRS = 1;

/** True when a call names the final tool (matched case-insensitively, as the registry matches tool names). */
export function isFinalResultCall(name: string | undefined): boolean {
  return name?.trim().toLowerCase() === FINAL_RESULT_TOOL.toLowerCase();
}

/** The final tool as the model sees it. Not strict: strict mode accepts only a subset of JSON Schema. */
export function finalResultToolSchema(outputSchema: Record<string, unknown>): ToolSchema {
  return {
    type: 'function',
    function: {
      name: FINAL_RESULT_TOOL,
      description:
        'Finish the task by calling this tool once with the result as its arguments, matching its parameters exactly. ' +
        'Call it instead of answering in text; nothing runs after it.',
      parameters: outputSchema,
    },
  };
}

/** The system prompt's line for a structured run. */
export const FINAL_RESULT_INSTRUCTION = `When the task is done, call ${FINAL_RESULT_TOOL} with the result as its arguments instead of answering in text; the run ends with it.`;
