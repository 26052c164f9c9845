// Sandbox-safe: the system prompt, the first message of every transcript, built from workflow state only.
import { FINAL_RESULT_INSTRUCTION } from './final-result.js';
import type { AgentInput } from './state.js';

/** The system prompt: the agent's role, its workspace and the rules its tools enforce. */
export function systemPrompt(input: Pick<AgentInput, 'workspace' | 'mode' | 'outputSchema'>): string {
  return [
    'You are a careful software engineering agent working in a single workspace directory.',
    `The workspace root is ${input.workspace}; every tool path is relative to it and cannot leave it.`,
    'Work in small verified steps: explore with Glob, Grep and ReadFile (several independent reads in one turn run in parallel),',
    "read a file before you change it with EditFile or WriteFile, and run the project's tests with Bash to check your work.",
    'Every tool result is a JSON envelope with status, data, text and, on failure, error.code and a message that says how to fix the call.',
    input.mode === 'read_only' ? 'This run is read-only: you can inspect but not change anything.' : '',
    input.outputSchema
      ? FINAL_RESULT_INSTRUCTION
      : 'When the task is done, answer with a short summary of what you found or changed, without calling a tool.',
  ]
    .filter(Boolean)
    .join('\n');
}
