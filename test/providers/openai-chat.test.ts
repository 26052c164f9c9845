import { APIError, APIUserAbortError } from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { createOpenAIChatProvider } from '../../src/providers/openai-chat/adapter.js';
import { startScriptedModelServer } from '../../src/scripted-model/server.js';
import type { ScriptTurn, ScriptedModelServer } from '../../src/scripted-model/server.js';
import type { ToolSchema } from '../../src/protocol/model.js';
import { emptyCostLedger, recordModelCall } from '../../src/core/pricing.js';

const readFileTool: ToolSchema = {
  type: 'function',
  function: {
    name: 'ReadFile',
    description: 'Read a file',
    parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
  },
};

let server: ScriptedModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function providerFor(script: ScriptTurn[]) {
  server = await startScriptedModelServer({ script });
  return createOpenAIChatProvider({ apiKey: 'test-key', baseURL: server.url, defaultModel: 'scripted-model' });
}

describe('createOpenAIChatProvider against the scripted server', () => {
  it('streams tool calls split into small deltas and returns them whole', async () => {
    const provider = await providerFor([
      {
        content: 'Reading both.',
        tool_calls: [
          { id: 'call_1', name: 'ReadFile', arguments: { path: 'src/a.ts' } },
          { name: 'ReadFile', arguments: { path: 'README.md' } },
        ],
        chunk_size: 3,
        usage: { prompt_tokens: 40, completion_tokens: 12 },
      },
    ]);
    const turn = await provider.complete({
      messages: [{ role: 'user', content: 'read' }],
      tools: [readFileTool],
      model: '',
    });
    expect(turn).toEqual({
      content: 'Reading both.',
      toolCalls: [
        { id: 'call_1', name: 'ReadFile', arguments: '{"path":"src/a.ts"}', complete: true },
        { id: 'call_1_1', name: 'ReadFile', arguments: '{"path":"README.md"}', complete: true },
      ],
      finishReason: 'tool_calls',
      usage: { promptTokens: 40, completionTokens: 12, totalTokens: 52 },
      model: 'scripted-model',
    });
  });

  it('records the model that answered, not the one it asked for, and prices it as that model', async () => {
    const provider = await providerFor([{ model: 'qwen2.5-coder', content: 'hi' }, { content: 'again' }]);
    const answered = await provider.complete({
      messages: [{ role: 'user', content: 'hi' }],
      tools: [],
      model: 'gpt-4o-mini',
    });
    expect(server!.requests[0]).toMatchObject({ model: 'gpt-4o-mini' });
    expect(answered.model).toBe('qwen2.5-coder');
    // Not in the price table: counted at $0 and named as unpriced, never priced as the model asked for.
    const ledger = recordModelCall(emptyCostLedger(), answered.usage, answered.model);
    expect(ledger).toMatchObject({ costUsd: 0, unpricedModels: ['qwen2.5-coder'] });
    // A response that names the requested model is recorded as such.
    const echoed = await provider.complete({
      messages: [{ role: 'user', content: 'hi' }],
      tools: [],
      model: 'gpt-4o-mini',
    });
    expect(echoed.model).toBe('gpt-4o-mini');
  });

  it('sends the documented request options', async () => {
    const provider = await providerFor([{ content: 'a' }, { content: 'b' }]);
    await provider.complete({ messages: [{ role: 'user', content: 'hi' }], tools: [readFileTool], model: 'gpt-x' });
    await provider.complete({ messages: [{ role: 'user', content: 'hi' }], tools: [], model: 'gpt-x' });
    const [withTools, withoutTools] = server!.requests;
    expect(withTools).toMatchObject({
      model: 'gpt-x',
      stream: true,
      stream_options: { include_usage: true },
      tool_choice: 'auto',
      parallel_tool_calls: true,
      tools: [readFileTool],
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(withoutTools).not.toHaveProperty('tools');
    expect(withoutTools).not.toHaveProperty('tool_choice');
    expect(withoutTools).not.toHaveProperty('parallel_tool_calls');
  });

  it('delivers a malformed argument string verbatim', async () => {
    const malformed = "{path: 'a.ts', limit: 10,}";
    const provider = await providerFor([
      { tool_calls: [{ id: 'c', name: 'read_file', arguments: malformed }], chunk_size: 4 },
    ]);
    const turn = await provider.complete({
      messages: [{ role: 'user', content: 'x' }],
      tools: [readFileTool],
      model: 'm',
    });
    expect(turn.toolCalls).toEqual([{ id: 'c', name: 'read_file', arguments: malformed, complete: true }]);
  });

  it('marks the last call incomplete when the stream is cut off mid-arguments', async () => {
    const provider = await providerFor([
      {
        tool_calls: [
          { id: 'a', name: 'ReadFile', arguments: { path: 'one.ts' } },
          { id: 'b', name: 'Bash', arguments: { command: 'npm test -- --run' } },
        ],
        chunk_size: 5,
        truncate_stream: true,
      },
    ]);
    const turn = await provider.complete({
      messages: [{ role: 'user', content: 'x' }],
      tools: [readFileTool],
      model: 'm',
    });
    expect(turn.finishReason).toBe('other');
    expect(turn.toolCalls.map((call) => call.complete)).toEqual([true, false]);
    expect('{"command":"npm test -- --run"}'.startsWith(turn.toolCalls[1]!.arguments!)).toBe(true);
    expect(turn.usage).toEqual({ promptTokens: 0, completionTokens: 0, totalTokens: 0 });
  });

  it('reports finish_reason length with the truncated call incomplete', async () => {
    const provider = await providerFor([
      {
        tool_calls: [{ id: 'w', name: 'WriteFile', arguments: '{"path":"a.md","content":"# Ti' }],
        finish_reason: 'length',
      },
    ]);
    const turn = await provider.complete({
      messages: [{ role: 'user', content: 'x' }],
      tools: [readFileTool],
      model: 'm',
    });
    expect(turn.finishReason).toBe('length');
    expect(turn.toolCalls[0]).toMatchObject({ arguments: '{"path":"a.md","content":"# Ti', complete: false });
  });

  it('reports streaming progress once per network read, the last with everything received', async () => {
    const provider = await providerFor([{ content: 'abcdefghij', chunk_size: 2 }]);
    const progress: number[] = [];
    await provider.complete({
      messages: [{ role: 'user', content: 'x' }],
      tools: [],
      model: 'm',
      onProgress: (update) => progress.push(update.contentChars),
    });
    expect(progress.at(-1)).toBe(10);
    // A read holding many events is one update: heartbeats only need the latest figures.
    expect(progress.length).toBeGreaterThanOrEqual(1);
    expect(progress).toEqual([...progress].sort((left, right) => left - right));
  });

  it('throws the SDK error for an HTTP error turn, with status and headers', async () => {
    const provider = await providerFor([{ error: { status: 429, headers: { 'retry-after': '3' } } }]);
    const failure = await provider
      .complete({ messages: [{ role: 'user', content: 'x' }], tools: [], model: 'm' })
      .catch((error: unknown) => error);
    expect(failure).toMatchObject({ status: 429 });
    expect((failure as { headers: Headers }).headers.get('retry-after')).toBe('3');
  });

  it("throws the stream's error chunk as an APIError without status (a scripted stream_error)", async () => {
    const provider = await providerFor([
      { content: 'half of this arrives', chunk_size: 2, stream_error: { code: 'server_error', message: 'overloaded' } },
    ]);
    const failure = await provider
      .complete({ messages: [{ role: 'user', content: 'x' }], tools: [], model: 'm' })
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(APIError);
    expect(failure).toMatchObject({ status: undefined, code: 'server_error', message: 'overloaded' });
  });

  it('rejects when aborted while waiting for the answer', async () => {
    const provider = await providerFor([{ content: 'late', delay_ms: 5_000 }]);
    const controller = new AbortController();
    const pending = provider.complete({
      messages: [{ role: 'user', content: 'x' }],
      tools: [],
      model: 'm',
      signal: controller.signal,
    });
    setTimeout(() => controller.abort(), 50);
    await expect(pending).rejects.toBeInstanceOf(APIUserAbortError);
  });
});
