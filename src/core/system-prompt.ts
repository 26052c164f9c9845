// Workflow-safe: the system prompt, the first message of every transcript, built from workflow state only. The tools it
// names are the built-in contracts with a `promptRole`, in the registry's order (by name).
import type { PromptRole } from '../tools/define-tool.js';
import { builtinTools } from '../tools/index.js';
import { FINAL_RESULT_INSTRUCTION } from './final-result.js';
import type { AgentInput } from './state.js';

/** The system prompt: the agent's role, its workspace and the rules its tools enforce. */
export function systemPrompt(input: Pick<AgentInput, 'workspace' | 'mode' | 'outputSchema' | 'parent'>): string {
  return [
    'You are a careful software engineering agent working in a single workspace directory.',
    `The workspace root is ${input.workspace}; every tool path is relative to it and cannot leave it.`,
    `Work in small verified steps: explore with ${toolsFor('explore', 'and')} (several independent reads in one turn run in parallel),`,
    `read a file before you change it with ${toolsFor('change', 'or')}, and run the project's tests with ${toolsFor('check', 'and')} to check your work.`,
    'Every tool result is a JSON envelope with status, data, text and, on failure, error.code and a message that says how to fix the call.',
    input.mode === 'read_only' ? 'This run is read-only: you can inspect but not change anything.' : '',
    input.parent
      ? 'You are a sub-agent: another agent gave you this task and reads only your final answer, so make it a complete, self-contained report.'
      : '',
    input.outputSchema
      ? FINAL_RESULT_INSTRUCTION
      : 'When the task is done, answer with a short summary of what you found or changed, without calling a tool.',
  ]
    .filter(Boolean)
    .join('\n');
}

/** The built-in tools of one prompt role as a phrase: `A`, `A and B`, `A, B and C` (or `or`). */
function toolsFor(role: PromptRole, conjunction: 'and' | 'or'): string {
  const names = builtinTools.filter((contract) => contract.promptRole === role).map((contract) => contract.name);
  return names.length <= 1
    ? (names[0] ?? '')
    : `${names.slice(0, -1).join(', ')} ${conjunction} ${names[names.length - 1]!}`;
}
