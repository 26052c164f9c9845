import { describe, expect, it } from 'vitest';
import { FINAL_RESULT_INSTRUCTION } from '../../src/core/final-result.js';
import { systemPrompt } from '../../src/core/system-prompt.js';

// The prompt names its tools from the contracts' `promptRole`; the model must still receive exactly this text.
const DEFAULT_PROMPT = [
  'You are a careful software engineering agent working in a single workspace directory.',
  'The workspace root is /w; every tool path is relative to it and cannot leave it.',
  'Work in small verified steps: explore with Glob, Grep and ReadFile (several independent reads in one turn run in parallel),',
  "read a file before you change it with EditFile or WriteFile, and run the project's tests with Bash to check your work.",
  'Every tool result is a JSON envelope with status, data, text and, on failure, error.code and a message that says how to fix the call.',
  'When the task is done, answer with a short summary of what you found or changed, without calling a tool.',
].join('\n');

describe('systemPrompt', () => {
  it('names the built-in tools of each role, word for word as before', () => {
    expect(systemPrompt({ workspace: '/w', mode: 'default' })).toBe(DEFAULT_PROMPT);
  });

  it('adds the read-only line to a read-only run', () => {
    expect(systemPrompt({ workspace: '/w', mode: 'read_only' })).toBe(
      [
        'You are a careful software engineering agent working in a single workspace directory.',
        'The workspace root is /w; every tool path is relative to it and cannot leave it.',
        'Work in small verified steps: explore with Glob, Grep and ReadFile (several independent reads in one turn run in parallel),',
        "read a file before you change it with EditFile or WriteFile, and run the project's tests with Bash to check your work.",
        'Every tool result is a JSON envelope with status, data, text and, on failure, error.code and a message that says how to fix the call.',
        'This run is read-only: you can inspect but not change anything.',
        'When the task is done, answer with a short summary of what you found or changed, without calling a tool.',
      ].join('\n'),
    );
  });

  it('ends a structured run with the final-result instruction', () => {
    const prompt = systemPrompt({ workspace: '/w', mode: 'default', outputSchema: { type: 'object' } });
    expect(prompt.split('\n').at(-1)).toBe(FINAL_RESULT_INSTRUCTION);
    expect(prompt).toBe(DEFAULT_PROMPT.split('\n').slice(0, -1).concat(FINAL_RESULT_INSTRUCTION).join('\n'));
  });
});
