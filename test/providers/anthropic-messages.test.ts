// The Anthropic adapter through the real SDK, over HTTP, against the scripted server's Messages dialect (which
// refuses what the real API refuses).
import { ApplicationFailure } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import { toModelFailure } from '../../src/activities/failures.js';
import type { ChatMessage } from '../../src/protocol/model.js';
import { emptyCostLedger, recordModelCall } from '../../src/core/pricing.js';
import { createAnthropicMessagesProvider, createProvider } from '../../src/providers/anthropic/adapter.js';
import { DEFAULT_MAX_TOKENS, toAnthropicTool } from '../../src/providers/anthropic/anthropic-request.js';
import { toFinishReason } from '../../src/providers/anthropic/anthropic-stream.js';
import { createProviderResolver } from '../../src/providers/resolve-provider.js';
import { workerKeyFor } from '../../src/providers/setup.js';
import { providerLine } from '../../src/providers/table.js';
import type { ScriptTurn } from '../../src/scripted-model/server.js';
import { builtinTools } from '../../src/tools/index.js';
import {
  ADAPTERS,
  READ_FILE_PARAMETERS,
  describeProviderCases,
  readFileTool,
  useScriptedServer,
} from '../support/provider-suite.js';

describeProviderCases(ADAPTERS.anthropic);

const ANTHROPIC_CREDENTIALS = providerLine('anthropic')!.credentials;

/** ANTHROPIC_API_KEY when the worker may send it to `baseURL`. */
const anthropicKeyFor = (env: NodeJS.ProcessEnv, baseURL: string) => workerKeyFor(env, ANTHROPIC_CREDENTIALS, baseURL);

const scripted = useScriptedServer();

async function providerFor(script: ScriptTurn[]) {
  const server = await scripted.start(script);
  return createAnthropicMessagesProvider({ apiKey: 'test-key', baseURL: server.url, defaultModel: 'claude-test' });
}

/** The Messages request body the server received. */
function sent(index = 0): Record<string, unknown> & { messages: { role: string; content: unknown[] }[] } {
  return scripted.server.requests[index] as never;
}

/** The last transcript of an agent that read two files at once, one read failing. */
const transcriptWithResults: ChatMessage[] = [
  { role: 'system', content: 'You are a coding agent.' },
  { role: 'system', content: 'Workspace: /w' },
  { role: 'user', content: 'read both' },
  {
    role: 'assistant',
    content: 'Reading both.',
    tool_calls: [
      { id: 'toolu_a', type: 'function', function: { name: 'ReadFile', arguments: '{"path":"a.ts"}' } },
      { id: 'toolu_b', type: 'function', function: { name: 'ReadFile', arguments: '{"path":"b.ts"}' } },
    ],
  },
  { role: 'tool', tool_call_id: 'toolu_a', content: '{"status":"success","data":{"content":"A"}}' },
  { role: 'tool', tool_call_id: 'toolu_b', content: '{"status":"error","error":{"code":"NOT_FOUND"}}' },
  { role: 'user', content: 'Note: keep going.' },
];

describe('the Anthropic Messages provider against the scripted server', () => {
  it('sends system as cached top-level blocks and tool results as one user message paired with their calls', async () => {
    const provider = await providerFor([{ content: 'done' }]);
    await provider.complete({ messages: transcriptWithResults, tools: [readFileTool], model: '' });
    const body = sent();
    expect(body).toMatchObject({ model: 'claude-test', max_tokens: DEFAULT_MAX_TOKENS, stream: true });
    expect(body.system).toEqual([
      { type: 'text', text: 'You are a coding agent.' },
      { type: 'text', text: 'Workspace: /w', cache_control: { type: 'ephemeral' } },
    ]);
    expect(body.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'read both' }] },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Reading both.' },
          { type: 'tool_use', id: 'toolu_a', name: 'ReadFile', input: { path: 'a.ts' } },
          { type: 'tool_use', id: 'toolu_b', name: 'ReadFile', input: { path: 'b.ts' } },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'toolu_a', content: '{"status":"success","data":{"content":"A"}}' },
          {
            type: 'tool_result',
            tool_use_id: 'toolu_b',
            content: '{"status":"error","error":{"code":"NOT_FOUND"}}',
            is_error: true,
          },
          // The latest message is marked too, so the next step reads the transcript so far from the cache.
          { type: 'text', text: 'Note: keep going.', cache_control: { type: 'ephemeral' } },
        ],
      },
    ]);
    expect(body.tools).toEqual([
      {
        name: 'ReadFile',
        description: 'Read a file',
        input_schema: READ_FILE_PARAMETERS,
        cache_control: { type: 'ephemeral' },
      },
    ]);
    expect(body.tool_choice).toEqual({ type: 'auto' });
  });

  it('exports the tools from their contracts in the Anthropic format, the last one marked for caching', async () => {
    const provider = await providerFor([{ content: 'ok' }]);
    const contracts = builtinTools.filter((tool) => tool.name === 'ReadFile' || tool.name === 'Bash');
    await provider.complete({ messages: [{ role: 'user', content: 'hi' }], tools: contracts, model: 'claude-test' });
    const tools = sent().tools as Record<string, unknown>[];
    expect(tools.map((tool) => tool.name)).toEqual(contracts.map((contract) => contract.name));
    expect(tools[0]).toEqual(toAnthropicTool(contracts[0]!));
    expect(tools[1]).toEqual({ ...toAnthropicTool(contracts[1]!), cache_control: { type: 'ephemeral' } });
  });

  it.each([
    ['auto', { type: 'auto' }],
    ['required', { type: 'any' }],
    ['none', { type: 'none' }],
    [{ name: 'ReadFile' }, { type: 'tool', name: 'ReadFile' }],
  ] as const)('maps tool choice %j to %j, leaving parallel tool use on', async (choice, wire) => {
    const provider = await providerFor([{ content: 'ok' }]);
    await provider.complete({
      messages: [{ role: 'user', content: 'hi' }],
      tools: [readFileTool],
      toolChoice: choice,
      model: 'claude-test',
    });
    expect(sent().tool_choice).toEqual(wire);
  });

  it('assembles streamed text and parallel tool calls from small deltas, with usage counting the cache', async () => {
    const provider = await providerFor([
      {
        content: 'Reading both.',
        tool_calls: [
          { id: 'toolu_1', name: 'ReadFile', arguments: { path: 'src/a.ts' } },
          { name: 'ReadFile', arguments: { path: 'README.md' } },
        ],
        chunk_size: 3,
        usage: { prompt_tokens: 1000, completion_tokens: 40, cache_read_tokens: 700, cache_write_tokens: 200 },
      },
    ]);
    const progress: number[] = [];
    const turn = await provider.complete({
      messages: [{ role: 'user', content: 'read' }],
      tools: [readFileTool],
      model: 'claude-sonnet-4-5',
      onProgress: (update) => progress.push(update.chunks),
    });
    expect(turn).toEqual({
      content: 'Reading both.',
      toolCalls: [
        { id: 'toolu_1', name: 'ReadFile', arguments: '{"path":"src/a.ts"}', complete: true },
        { id: 'call_1_1', name: 'ReadFile', arguments: '{"path":"README.md"}', complete: true },
      ],
      finishReason: 'tool_calls',
      usage: { promptTokens: 1000, completionTokens: 40, totalTokens: 1040, cachedTokens: 700, cacheWriteTokens: 200 },
      model: 'claude-sonnet-4-5',
    });
    // Progress counts the stream's events, however many arrived in one read.
    expect(progress.at(-1)).toBeGreaterThan(10);
    // 100 input at $3, 700 cache reads at $0.30, 200 cache writes at $3.75, 40 output at $15 (per million).
    const ledger = recordModelCall(emptyCostLedger(), turn.usage, turn.model);
    expect(ledger.costUsd).toBeCloseTo((100 * 3 + 700 * 0.3 + 200 * 3.75 + 40 * 15) / 1e6, 12);
  });

  it('keeps signed thinking as provider items and sends it back first, verbatim', async () => {
    const provider = await providerFor([
      {
        thinking: { text: 'The file is probably a.ts.', signature: 'sig-abc==' },
        tool_calls: [{ id: 'toolu_1', name: 'ReadFile', arguments: { path: 'a.ts' } }],
        chunk_size: 4,
      },
      { content: 'It says A.' },
    ]);
    const first = await provider.complete({
      messages: [{ role: 'user', content: 'what is in a.ts?' }],
      tools: [readFileTool],
      model: 'claude-test',
    });
    const thinking = { type: 'thinking', thinking: 'The file is probably a.ts.', signature: 'sig-abc==' };
    expect(first.providerItems).toEqual([{ provider: 'anthropic', item: thinking }]);
    await provider.complete({
      messages: [
        { role: 'user', content: 'what is in a.ts?' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            { id: 'toolu_1', type: 'function', function: { name: 'ReadFile', arguments: '{"path":"a.ts"}' } },
          ],
          provider_items: [
            ...first.providerItems!,
            { provider: 'openai-responses', item: { type: 'reasoning', encrypted_content: 'not for anthropic' } },
            { provider: 'anthropic', item: { type: 'redacted_thinking', data: 'opaque' } },
          ],
        },
        { role: 'tool', tool_call_id: 'toolu_1', content: '{"status":"success","data":"A"}' },
      ],
      tools: [readFileTool],
      model: 'claude-test',
    });
    expect(sent(1).messages[1]).toEqual({
      role: 'assistant',
      content: [
        thinking,
        { type: 'redacted_thinking', data: 'opaque' },
        { type: 'tool_use', id: 'toolu_1', name: 'ReadFile', input: { path: 'a.ts' } },
      ],
    });
  });

  it('maps the stop reasons: end_turn, tool_use, max_tokens (a cut call incomplete), refusal', async () => {
    const provider = await providerFor([
      { content: 'done' },
      { content: 'no.', finish_reason: 'content_filter' },
      { tool_calls: [{ id: 'toolu_1', name: 'ReadFile', arguments: '{"path":"a' }], finish_reason: 'length' },
    ]);
    const request = { messages: [{ role: 'user' as const, content: 'go' }], tools: [readFileTool], model: 'm' };
    expect((await provider.complete(request)).finishReason).toBe('stop');
    expect(await provider.complete(request)).toMatchObject({ content: 'no.', finishReason: 'content_filter' });
    expect(await provider.complete(request)).toMatchObject({
      finishReason: 'length',
      toolCalls: [{ id: 'toolu_1', arguments: '{"path":"a', complete: false }],
    });
    expect(
      ['end_turn', 'stop_sequence', 'tool_use', 'max_tokens', 'refusal', 'pause_turn', null].map(toFinishReason),
    ).toEqual(['stop', 'stop', 'tool_calls', 'length', 'content_filter', 'other', 'other']);
  });

  it('marks the last call incomplete when the stream is cut off mid-input', async () => {
    const provider = await providerFor([
      {
        tool_calls: [
          { id: 'toolu_1', name: 'ReadFile', arguments: { path: 'a.ts' } },
          { id: 'toolu_2', name: 'ReadFile', arguments: { path: 'b.ts' } },
        ],
        chunk_size: 2,
        truncate_stream: true,
      },
    ]);
    const turn = await provider.complete({
      messages: [{ role: 'user', content: 'go' }],
      tools: [readFileTool],
      model: 'm',
    });
    expect(turn.finishReason).toBe('other');
    expect(turn.toolCalls).toEqual([
      { id: 'toolu_1', name: 'ReadFile', arguments: '{"path":"a.ts"}', complete: true },
      { id: 'toolu_2', name: 'ReadFile', arguments: '{"path"', complete: false },
    ]);
  });

  it('maps errors: 529 overloaded and 429 retried after retry-after, 400/401/403/404 not retried', async () => {
    const provider = await providerFor([
      { error: { status: 529, headers: { 'retry-after': '7' } } },
      { error: { status: 429, headers: { 'retry-after': '2' } } },
      { error: { status: 500 } },
      { error: { status: 400 } },
      { error: { status: 401 } },
      { error: { status: 403 } },
      { error: { status: 404 } },
    ]);
    const request = { messages: [{ role: 'user' as const, content: 'go' }], tools: [], model: 'm' };
    const failure = async () => {
      const error = await provider.complete(request).then(
        () => undefined,
        (caught: unknown) => caught,
      );
      return toModelFailure(error) as ApplicationFailure;
    };
    expect(await failure()).toMatchObject({
      type: 'ModelInvocationError.Overloaded',
      nonRetryable: false,
      nextRetryDelay: 7000,
    });
    expect(await failure()).toMatchObject({
      type: 'ModelInvocationError.RateLimited',
      nonRetryable: false,
      nextRetryDelay: 2000,
    });
    expect(await failure()).toMatchObject({ type: 'ModelInvocationError.ServerError', nonRetryable: false });
    for (const reason of ['BadRequest', 'Unauthorized', 'Forbidden', 'NotFound'])
      expect(await failure()).toMatchObject({ type: `ModelInvocationError.${reason}`, nonRetryable: true });
  });

  it("maps Anthropic's too-long prompt to ContextLengthExceeded, not retried", async () => {
    const message = 'prompt is too long: 210000 tokens > 200000 maximum';
    const provider = await providerFor([
      { error: { status: 400, body: { type: 'error', error: { type: 'invalid_request_error', message } } } },
    ]);
    const error = await provider
      .complete({ messages: [{ role: 'user', content: 'go' }], tools: [], model: 'm' })
      .catch((caught: unknown) => caught);
    expect(toModelFailure(error)).toMatchObject({
      type: 'ModelInvocationError.ContextLengthExceeded',
      nonRetryable: true,
    });
  });

  it('sends nothing the real API would refuse for a transcript with an empty assistant turn', async () => {
    const provider = await providerFor([{ content: 'ok' }]);
    await provider.complete({
      messages: [
        { role: 'user', content: 'one' },
        { role: 'assistant', content: null },
        { role: 'user', content: 'two' },
      ],
      tools: [],
      model: 'm',
    });
    expect(sent().messages).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'one' },
          { type: 'text', text: 'two', cache_control: { type: 'ephemeral' } },
        ],
      },
    ]);
  });
});

describe('the anthropic provider in the worker', () => {
  it('accepts a base URL ending in /v1 and sends the worker key only to its own endpoints', async () => {
    const server = await scripted.start([{ content: 'one' }, { content: 'two' }]);
    const origin = new URL(server.url).origin;
    const request = { messages: [{ role: 'user' as const, content: 'hi' }], tools: [], model: '' };
    // A run naming an endpoint the worker does not trust reaches it without the key.
    const untrusted = createProviderResolver({ ANTHROPIC_API_KEY: 'sk-ant-secret' });
    await (
      await untrusted({ provider: 'anthropic', baseUrl: server.url, model: 'claude-x' })
    ).provider.complete(request);
    // The worker's own ANTHROPIC_BASE_URL gets it.
    const own = createProviderResolver({ ANTHROPIC_API_KEY: 'sk-ant-secret', ANTHROPIC_BASE_URL: origin });
    await (await own({ provider: 'anthropic', model: 'claude-x' })).provider.complete(request);
    expect(server.authorizations).toEqual(['Bearer unused', 'Bearer sk-ant-secret']);
    expect(anthropicKeyFor({ ANTHROPIC_API_KEY: 'k' }, 'https://api.anthropic.com')).toBe('k');
    expect(anthropicKeyFor({ ANTHROPIC_API_KEY: 'k', DURABLE_AGENT_KEY_ORIGINS: origin }, `${origin}/v1`)).toBe('k');
    expect(anthropicKeyFor({ ANTHROPIC_API_KEY: 'k' }, 'https://evil.example')).toBeUndefined();
  });

  it('fails as a configuration error without a key and without a base URL', () => {
    const build = () =>
      createProvider({
        env: {},
        name: 'anthropic',
        credentials: ANTHROPIC_CREDENTIALS,
        baseURL: undefined,
        model: 'm',
        keyFor: () => undefined,
      });
    expect(build).toThrow(ApplicationFailure);
    expect(build).toThrow(/ANTHROPIC_API_KEY is not set/);
  });
});
