import { describe, expect, it } from 'vitest';
import type { ChatMessage, ToolSchema } from '../../src/protocol/model.js';
import { parseArguments } from '../../src/core/arguments/parse-arguments.js';
import { formatReminder, reactInstructions, toReactMessages } from '../../src/providers/react/format.js';
import { finalAnswerOf, parseReactAnswer } from '../../src/providers/react/parse.js';

const readFile: ToolSchema = {
  type: 'function',
  function: {
    name: 'ReadFile',
    description: 'Read a file from the workspace.',
    parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
  },
};
const bash: ToolSchema = {
  type: 'function',
  function: {
    name: 'Bash',
    description: 'Run a command.',
    parameters: { type: 'object', properties: { command: { type: 'string' } } },
  },
};

describe('reactInstructions', () => {
  it("describes each tool's name, description and JSON Schema, and the answer format", () => {
    const text = reactInstructions([readFile, bash]);
    expect(text).toContain('### ReadFile\nRead a file from the workspace.');
    expect(text).toContain(`Parameters (JSON Schema): ${JSON.stringify(readFile.function.parameters)}`);
    expect(text).toContain('### Bash\nRun a command.');
    expect(text).toContain('Thought: <what you will do and why>');
    expect(text).toContain("Action: <the tool's name: one of ReadFile, Bash>");
    expect(text).toContain('Action Input: <the arguments as one JSON object>');
    expect(text).toContain('Final Answer: <your answer>');
  });

  it('follows the tool choice: none describes nothing, required and a named tool rule out a final answer', () => {
    expect(reactInstructions([readFile], 'none')).toBe('');
    expect(reactInstructions([], 'auto')).toBe('');
    const required = reactInstructions([readFile], 'required');
    expect(required).toContain('You must call a tool now');
    expect(required).not.toContain('Final Answer:');
    const named = reactInstructions([readFile, bash], { name: 'Bash' });
    expect(named).toContain('Use the tool Bash now: answer with "Action: Bash".');
    expect(named).not.toContain('Final Answer:');
    expect(formatReminder({ name: 'Bash' })).toContain('"Action: Bash"');
    expect(formatReminder('auto')).toContain('Final Answer:');
  });
});

describe('toReactMessages', () => {
  const transcript: ChatMessage[] = [
    { role: 'system', content: 'You are an agent.' },
    { role: 'user', content: 'Fix the bug.' },
    {
      role: 'assistant',
      content: 'Reading both files.',
      tool_calls: [
        { id: 'a', type: 'function', function: { name: 'ReadFile', arguments: '{"path":"a.ts"}' } },
        { id: 'b', type: 'function', function: { name: 'ReadFile', arguments: '{"path":"b.ts"}' } },
      ],
    },
    { role: 'tool', tool_call_id: 'a', content: 'export const a = 1;' },
    { role: 'tool', tool_call_id: 'b', content: 'export const b = 2;' },
    { role: 'user', content: 'Also check c.ts.' },
    { role: 'assistant', content: 'All fixed.' },
  ];

  it('appends the instructions to the system message and writes calls and results as text', () => {
    const messages = toReactMessages(transcript, 'INSTRUCTIONS');
    expect(messages).toEqual([
      { role: 'system', content: 'You are an agent.\n\nINSTRUCTIONS' },
      { role: 'user', content: 'Fix the bug.' },
      {
        role: 'assistant',
        content:
          'Thought: Reading both files.\nAction: ReadFile\nAction Input: {"path":"a.ts"}\nAction: ReadFile\nAction Input: {"path":"b.ts"}',
      },
      // Joined into one user message: such models' chat templates often insist that the roles alternate.
      {
        role: 'user',
        content: 'Observation: export const a = 1;\n\nObservation: export const b = 2;\n\nAlso check c.ts.',
      },
      { role: 'assistant', content: 'Final Answer: All fixed.' },
    ]);
    expect(messages.some((message) => message.role === 'tool')).toBe(false);
  });

  it('adds a system message when the transcript has none, and none when there is nothing to describe', () => {
    expect(toReactMessages([{ role: 'user', content: 'hi' }], 'TOOLS')[0]).toEqual({
      role: 'system',
      content: 'TOOLS',
    });
    expect(toReactMessages([{ role: 'user', content: 'hi' }], '')).toEqual([{ role: 'user', content: 'hi' }]);
  });
});

describe('parseReactAnswer', () => {
  it('reads a thought and an action with its input, leaving the input as written', () => {
    expect(parseReactAnswer('Thought: I need the file.\nAction: ReadFile\nAction Input: {"path": "a.ts"}')).toEqual({
      kind: 'actions',
      thought: 'I need the file.',
      actions: [{ name: 'ReadFile', input: '{"path": "a.ts"}', complete: true }],
    });
  });

  it.each([
    ['lower case and extra spaces', 'thought : look\n  action:  ReadFile \naction input :  {"path":"a.ts"}  '],
    ['markdown emphasis', '**Thought:** look\n**Action:** ReadFile\n**Action Input:** {"path":"a.ts"}'],
    ['a fenced answer', '```\nThought: look\nAction: ReadFile\nAction Input: {"path":"a.ts"}\n```'],
    ['a fenced input', 'Thought: look\nAction: `ReadFile`\nAction Input:\n```json\n{"path":"a.ts"}\n```'],
    ['an underscored label', 'Thought: look\nAction: ReadFile\nAction_Input: {"path":"a.ts"}'],
    ['the input on the action line', 'Thought: look\nAction: ReadFile {"path":"a.ts"}'],
  ])('accepts %s', (_variant, text) => {
    expect(parseReactAnswer(text)).toEqual({
      kind: 'actions',
      thought: 'look',
      actions: [{ name: 'ReadFile', input: '{"path":"a.ts"}', complete: true }],
    });
  });

  it('keeps a multi-line input whole and reads several actions in order', () => {
    const parsed = parseReactAnswer(
      'Action: ReadFile\nAction Input: {\n  "path": "a.ts"\n}\nAction: Bash\nAction Input: {"command": "npm test"}',
    );
    expect(parsed).toEqual({
      kind: 'actions',
      thought: '',
      actions: [
        { name: 'ReadFile', input: '{\n  "path": "a.ts"\n}', complete: true },
        { name: 'Bash', input: '{"command": "npm test"}', complete: true },
      ],
    });
  });

  it('ignores what follows an imagined Observation', () => {
    const parsed = parseReactAnswer(
      'Action: ReadFile\nAction Input: {"path":"a.ts"}\nObservation: export const a = 1;\nFinal Answer: a is 1',
    );
    expect(parsed).toMatchObject({ kind: 'actions', actions: [{ name: 'ReadFile' }] });
  });

  it('gives an action without input empty arguments, and marks a call cut off by the token limit', () => {
    expect(parseReactAnswer('Action: ListTools')).toMatchObject({ actions: [{ name: 'ListTools', input: '{}' }] });
    expect(parseReactAnswer('Action: ReadFile\nAction Input: {"path": "a.t', true)).toMatchObject({
      actions: [{ name: 'ReadFile', complete: false }],
    });
  });

  it('reads a final answer, whole, across lines', () => {
    expect(parseReactAnswer('Thought: done\nFINAL ANSWER:  The fix:\n- loop from 0\nThought: it works')).toEqual({
      kind: 'final',
      answer: 'The fix:\n- loop from 0\nThought: it works',
    });
    expect(finalAnswerOf('Final Answer: 42')).toBe('42');
    expect(finalAnswerOf('Just prose.')).toBe('Just prose.');
  });

  it('lets whichever of Action and Final Answer comes first decide', () => {
    expect(parseReactAnswer('Action: Bash\nAction Input: {"command":"ls"}\nFinal Answer: done')).toMatchObject({
      kind: 'actions',
    });
    expect(parseReactAnswer('Final Answer: run Action: Bash yourself')).toMatchObject({ kind: 'final' });
  });

  it.each([
    ['prose', 'I will now read the file src/a.ts.'],
    ['an empty answer', ''],
    ['a thought alone', 'Thought: I should read a.ts'],
    ['an empty final answer', 'Final Answer:   '],
    ['an action without a name', 'Thought: hm\nAction:\nAction Input: {}'],
  ])('finds %s malformed', (_variant, text) => {
    expect(parseReactAnswer(text)).toEqual({ kind: 'malformed' });
  });

  it("passes near-JSON input to the workflow's argument repair, which reads it", () => {
    const parsed = parseReactAnswer("Thought: read it\nAction: ReadFile\nAction Input: {path: 'src/a.ts',}");
    expect(parsed.kind).toBe('actions');
    const input = parsed.kind === 'actions' ? parsed.actions[0]!.input : '';
    expect(input).toBe("{path: 'src/a.ts',}");
    const repaired = parseArguments(input, { toolName: 'ReadFile' });
    expect(repaired).toMatchObject({ ok: true, value: { path: 'src/a.ts' } });
    expect(repaired.ok && repaired.repairs.length).toBeGreaterThan(0);
  });
});
