import { afterEach, describe, expect, it } from 'vitest';
import type { ChatMessage } from '../../src/protocol/model.js';
import { createOpenAIChatProvider } from '../../src/providers/openai-chat/adapter.js';
import { createReactProvider } from '../../src/providers/react/protocol.js';
import { rejectsTools } from '../../src/providers/react/fallback.js';
import { createProviderResolver } from '../../src/providers/resolve-provider.js';
import { startScriptedModelServer } from '../../src/scripted-model/server.js';
import type { ScriptTurn, ScriptedModelServer } from '../../src/scripted-model/server.js';
import { parseScript } from '../../src/scripted-model/script.js';
import { readFileTool } from '../support/provider-suite.js';

const readFile = readFileTool;

let server: ScriptedModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function reactProviderFor(script: ScriptTurn[]) {
  server = await startScriptedModelServer({ script });
  return createReactProvider(createOpenAIChatProvider({ apiKey: 'k', baseURL: server.url, defaultModel: 'scripted' }));
}

const task: ChatMessage[] = [
  { role: 'system', content: 'You are a coding agent.' },
  { role: 'user', content: 'What does a.ts export?' },
];

function systemPromptOf(index: number): string {
  const first = server!.requests[index]!.messages[0]!;
  return first.role === 'system' ? first.content : '';
}

describe('the react protocol over the Chat Completions API', () => {
  it('offers the tools in the system prompt, sends no tools, and reads the answer as an ordinary tool call', async () => {
    const provider = await reactProviderFor([
      { content: 'I need the file.', tool_calls: [{ name: 'ReadFile', arguments: { path: 'a.ts' } }] },
    ]);
    const turn = await provider.complete({ messages: task, tools: [readFile], model: '' });
    const request = server!.requests[0]!;
    expect(request).not.toHaveProperty('tools');
    expect(request).not.toHaveProperty('tool_choice');
    expect(systemPromptOf(0)).toContain('You are a coding agent.\n\n## Tools');
    expect(systemPromptOf(0)).toContain(`### ReadFile\nRead a file\nParameters (JSON Schema): {"type":"object"`);
    expect(turn).toMatchObject({
      content: 'I need the file.',
      toolCalls: [{ name: 'ReadFile', arguments: '{"path":"a.ts"}', complete: true }],
      finishReason: 'tool_calls',
    });
    expect(turn.toolCalls[0]!.id).toMatch(/^react_[0-9a-f]{12}_0$/);
    // The same answer always gets the same id.
    const again = await reactProviderFor([
      { content: 'I need the file.', tool_calls: [{ name: 'ReadFile', arguments: { path: 'a.ts' } }] },
    ]);
    const same = await again.complete({ messages: task, tools: [readFile], model: '' });
    expect(same.toolCalls[0]!.id).toBe(turn.toolCalls[0]!.id);
  });

  it('sends earlier calls as Action text and their results as Observations, and reads the final answer', async () => {
    const provider = await reactProviderFor([{ content: 'a.ts exports a = 1.' }]);
    const turn = await provider.complete({
      messages: [
        ...task,
        {
          role: 'assistant',
          content: 'I need the file.',
          tool_calls: [{ id: 'c1', type: 'function', function: { name: 'ReadFile', arguments: '{"path":"a.ts"}' } }],
        },
        { role: 'tool', tool_call_id: 'c1', content: 'export const a = 1;' },
      ],
      tools: [readFile],
      model: '',
    });
    expect(server!.requests[0]!.messages.slice(2)).toEqual([
      { role: 'assistant', content: 'Thought: I need the file.\nAction: ReadFile\nAction Input: {"path":"a.ts"}' },
      { role: 'user', content: 'Observation: export const a = 1;' },
    ]);
    expect(turn).toMatchObject({ content: 'a.ts exports a = 1.', toolCalls: [], finishReason: 'stop' });
  });

  it('feeds a malformed answer back once, in the same call, and returns the corrected one with both usages', async () => {
    const provider = await reactProviderFor([
      { raw_content: 'Let me look at a.ts first.', usage: { prompt_tokens: 100, completion_tokens: 7 } },
      {
        tool_calls: [{ name: 'ReadFile', arguments: "{path: 'a.ts',}" }],
        usage: { prompt_tokens: 120, completion_tokens: 20 },
      },
    ]);
    const turn = await provider.complete({ messages: task, tools: [readFile], model: '' });
    expect(server!.requests).toHaveLength(2);
    expect(server!.requests[1]!.messages.slice(-2)).toEqual([
      { role: 'assistant', content: 'Let me look at a.ts first.' },
      { role: 'user', content: expect.stringContaining('Your answer was not in the required format') },
    ]);
    expect(turn).toMatchObject({
      toolCalls: [{ name: 'ReadFile', arguments: "{path: 'a.ts',}", complete: true }],
      usage: { promptTokens: 220, completionTokens: 27, totalTokens: 247 },
    });
  });

  it('takes a second malformed answer as the final answer when one is allowed, never asking a third time', async () => {
    const provider = await reactProviderFor([
      { raw_content: 'a.ts exports a.' },
      { raw_content: 'It exports a constant a.' },
    ]);
    const turn = await provider.complete({ messages: task, tools: [readFile], model: '' });
    expect(server!.requests).toHaveLength(2);
    expect(turn).toMatchObject({ content: 'It exports a constant a.', toolCalls: [] });
  });

  it('turns a second answer without the required call into a call the workflow refuses with its envelope', async () => {
    const provider = await reactProviderFor([{ content: 'Nothing to do.' }, { content: 'Still nothing.' }]);
    const turn = await provider.complete({
      messages: task,
      tools: [readFile],
      model: '',
      toolChoice: { name: 'ReadFile' },
    });
    expect(systemPromptOf(0)).toContain('Use the tool ReadFile now');
    expect(server!.requests).toHaveLength(2);
    expect(turn).toMatchObject({
      content: null,
      toolCalls: [{ name: 'ReadFile', arguments: 'Still nothing.', complete: true }],
    });
  });

  it('describes no tools under tool choice none and returns the answer as it is', async () => {
    const provider = await reactProviderFor([{ content: 'Just text.' }]);
    const turn = await provider.complete({ messages: task, tools: [readFile], model: '', toolChoice: 'none' });
    expect(systemPromptOf(0)).toBe('You are a coding agent.');
    expect(turn.content).toBe('Just text.');
  });
});

describe('the automatic switch when an endpoint rejects tools', () => {
  it('makes the rejected call again in the text protocol, and the later calls of that model straight away', async () => {
    server = await startScriptedModelServer({
      script: [
        { reject_tools: true, content: 'Reading.', tool_calls: [{ name: 'ReadFile', arguments: { path: 'a.ts' } }] },
        { content: 'a.ts exports a.' },
      ],
    });
    const { provider, model } = await createProviderResolver({})({ provider: 'scripted', baseUrl: server.url });
    const first = await provider.complete({ messages: task, tools: [readFile], model });
    // The refused request (with tools), then the same call in text.
    expect(server.requests).toHaveLength(2);
    expect(server.requests[0]).toHaveProperty('tools');
    expect(server.requests[1]).not.toHaveProperty('tools');
    expect(first.toolCalls).toMatchObject([{ name: 'ReadFile', arguments: '{"path":"a.ts"}' }]);
    const second = await provider.complete({ messages: task, tools: [readFile], model });
    expect(server.requests).toHaveLength(3);
    expect(server.requests[2]).not.toHaveProperty('tools');
    expect(second.content).toBe('a.ts exports a.');
  });

  it('keeps function calling for other bad requests, and for runs that chose react it never sends tools', async () => {
    server = await startScriptedModelServer({
      script: [
        { error: { status: 400, body: { error: { message: "Invalid 'tools[0].function.name'" } } } },
        { content: 'fine' },
        { content: 'fine' },
      ],
    });
    const resolve = createProviderResolver({});
    const { provider, model } = await resolve({ provider: 'scripted', baseUrl: server.url });
    await expect(provider.complete({ messages: task, tools: [readFile], model })).rejects.toMatchObject({
      status: 400,
    });
    await provider.complete({ messages: task, tools: [readFile], model });
    expect(server.requests[1]).toHaveProperty('tools');
    const react = (await resolve({ provider: 'scripted', baseUrl: server.url, toolProtocol: 'react' })).provider;
    expect(react).not.toBe(provider);
    await react.complete({ messages: task, tools: [readFile], model });
    expect(server.requests[2]).not.toHaveProperty('tools');
  });

  it('refuses an unknown tool protocol with a non-retryable failure', async () => {
    const resolve = createProviderResolver({});
    await expect(
      resolve({ provider: 'scripted', baseUrl: 'http://127.0.0.1:9/v1', toolProtocol: 'xml' as 'react' }),
    ).rejects.toThrow(/Unknown tool protocol "xml"/);
  });

  it.each([
    [400, 'registry.ollama.ai/library/llama3:8b does not support tools', true],
    [400, '"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set', true],
    [500, 'tools param requires --jinja flag', true],
    [500, 'Unsupported param: tools', true],
    [400, 'This model does not support function calling.', true],
    [400, "Invalid 'messages[1].content': string too long", false],
    [429, 'gemma does not support tools', false],
  ])('knows HTTP %i "%s" for a rejection of tools: %s', (status, message, expected) => {
    expect(rejectsTools(Object.assign(new Error(`${status} ${message}`), { status }))).toBe(expected);
  });
});

describe('the scripted server for models without function calling', () => {
  it('refuses a turn with both raw_content and content', () => {
    expect(() => parseScript([{ raw_content: 'x', content: 'y' }])).toThrow(/raw_content is the whole answer/);
  });

  it('answers a request with tools natively and one without tools in text, with raw_content verbatim', async () => {
    server = await startScriptedModelServer({
      script: [
        { content: 'Look.', tool_calls: [{ name: 'ReadFile', arguments: { path: 'a.ts' } }] },
        { content: 'Look.', tool_calls: [{ name: 'ReadFile', arguments: { path: 'a.ts' } }] },
        { raw_content: 'Action ReadFile please' },
      ],
    });
    const native = createOpenAIChatProvider({ apiKey: 'k', baseURL: server.url, defaultModel: 'scripted' });
    const withTools = await native.complete({ messages: task, tools: [readFile], model: '' });
    expect(withTools.toolCalls).toHaveLength(1);
    const withoutTools = await native.complete({ messages: task, tools: [], model: '' });
    expect(withoutTools).toMatchObject({
      content: 'Thought: Look.\nAction: ReadFile\nAction Input: {"path":"a.ts"}',
      toolCalls: [],
      finishReason: 'stop',
    });
    const raw = await native.complete({ messages: task, tools: [readFile], model: '' });
    expect(raw).toMatchObject({ content: 'Action ReadFile please', toolCalls: [] });
  });
});

describe("a script's expectation on a text-protocol request", () => {
  it('checks the latest Observation when the request has no tool messages', async () => {
    const provider = await reactProviderFor([
      { content: 'It says hello.', expect: { last_tool_contains: ['hello world'] } },
    ]);
    const turn = await provider.complete({
      messages: [
        ...task,
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'c1', type: 'function', function: { name: 'ReadFile', arguments: '{"path":"a.ts"}' } }],
        },
        { role: 'tool', tool_call_id: 'c1', content: 'hello world' },
      ],
      tools: [readFile],
      model: '',
    });
    expect(turn.content).toBe('It says hello.');
  });
});
