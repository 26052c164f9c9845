// The Responses adapter through the real `openai` client, over HTTP, against the scripted server's Responses dialect.
import type { ApplicationFailure } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import { toModelFailure } from '../../src/activities/failures.js';
import type { ChatMessage } from '../../src/protocol/model.js';
import { costOf, emptyCostLedger, priceFor, recordModelCall } from '../../src/core/pricing.js';
import { createOpenAIResponsesProvider } from '../../src/providers/openai-responses/adapter.js';
import { createProviderResolver } from '../../src/providers/resolve-provider.js';
import { ResponsesAssembler } from '../../src/providers/openai-responses/responses-assembler.js';
import { startScriptedModelServer } from '../../src/scripted-model/server.js';
import type { ScriptTurn } from '../../src/scripted-model/server.js';
import { toToolSchema } from '../../src/tools/schema-export.js';
import {
  ADAPTERS,
  continued,
  describeProviderCases,
  modelFailureOf as failureOf,
  readFileTool,
  strictReadFileTool,
  useScriptedServer,
} from '../support/provider-suite.js';

describeProviderCases(ADAPTERS.responses);

const scripted = useScriptedServer();

async function providerFor(script: ScriptTurn[]) {
  await scripted.start(script);
  return newProvider();
}

/** Another provider on the same server: what a second worker holds; it shares nothing with the first. */
function newProvider() {
  return createOpenAIResponsesProvider({
    apiKey: 'test-key',
    baseURL: scripted.server.url,
    defaultModel: 'scripted-model',
  });
}

describe('createOpenAIResponsesProvider against the scripted server', () => {
  it('sends a stateless request: the whole transcript as input items, flat tools, no stored state', async () => {
    const provider = await providerFor([{ content: 'done' }]);
    await provider.complete({
      messages: [
        { role: 'system', content: 'You are careful.' },
        { role: 'user', content: 'read a' },
        {
          role: 'assistant',
          content: 'Reading.',
          tool_calls: [{ id: 'call_a', type: 'function', function: { name: 'ReadFile', arguments: '{"path":"a"}' } }],
          // Another provider's item is not this API's to receive.
          provider_items: [{ provider: 'anthropic', item: { type: 'thinking', thinking: 'x', signature: 's' } }],
        },
        { role: 'tool', tool_call_id: 'call_a', content: 'alpha' },
        { role: 'user', content: 'thanks' },
      ],
      tools: [strictReadFileTool],
      model: 'gpt-5-mini',
    });
    expect(scripted.server.requests[0]).toEqual({
      model: 'gpt-5-mini',
      stream: true,
      store: false,
      include: ['reasoning.encrypted_content'],
      input: [
        { role: 'system', content: 'You are careful.' },
        { role: 'user', content: 'read a' },
        { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Reading.', annotations: [] }] },
        { type: 'function_call', call_id: 'call_a', name: 'ReadFile', arguments: '{"path":"a"}' },
        { type: 'function_call_output', call_id: 'call_a', output: 'alpha' },
        { role: 'user', content: 'thanks' },
      ],
      tools: [
        {
          type: 'function',
          name: 'ReadFile',
          description: 'Read a file',
          parameters: toToolSchema(strictReadFileTool).function.parameters,
          strict: true,
        },
      ],
      tool_choice: 'auto',
      parallel_tool_calls: true,
    });
  });

  it('carries reasoning across turns verbatim and statelessly: another worker continues the conversation', async () => {
    const provider = await providerFor([
      {
        reasoning: 'The file a holds the answer.',
        tool_calls: [{ id: 'call_r', name: 'ReadFile', arguments: { path: 'a' } }],
      },
      { content: 'It says alpha.', expect: { last_tool_contains: ['alpha'] } },
    ]);
    const start: ChatMessage[] = [{ role: 'user', content: 'what does a say?' }];
    const first = await provider.complete({ messages: start, tools: [readFileTool], model: '' });
    const reasoning = first.providerItems;
    expect(reasoning).toHaveLength(1);
    expect(reasoning![0]).toMatchObject({
      provider: 'openai-responses',
      item: { type: 'reasoning', summary: [{ type: 'summary_text', text: 'The file a holds the answer.' }] },
    });
    expect(reasoning![0]!.item.encrypted_content).toEqual(expect.any(String));

    // Stored in history as JSON and read back on another worker with a provider of its own.
    const transcript = JSON.parse(JSON.stringify(continued(start, first, () => 'alpha'))) as ChatMessage[];
    const second = await newProvider().complete({ messages: transcript, tools: [readFileTool], model: '' });
    expect(second.content).toBe('It says alpha.');
    const input = scripted.server.requests[1]!.input as Record<string, unknown>[];
    expect(input[1]).toEqual(reasoning![0]!.item);
    expect(input.slice(2).map((item) => item.type)).toEqual(['function_call', 'function_call_output']);
  });

  it('is refused, not retried, when the transcript lost the reasoning that led to a call', async () => {
    const provider = await providerFor([
      { reasoning: 'Look first.', tool_calls: [{ id: 'call_r', name: 'ReadFile', arguments: { path: 'a' } }] },
      { content: 'never served' },
    ]);
    const start: ChatMessage[] = [{ role: 'user', content: 'go' }];
    const first = await provider.complete({ messages: start, tools: [readFileTool], model: '' });
    const { providerItems: _dropped, ...withoutReasoning } = first;
    const failure = await failureOf(
      provider.complete({ messages: continued(start, withoutReasoning), tools: [readFileTool], model: '' }),
    );
    expect(failure.type).toBe('ModelInvocationError.BadRequest');
    expect(failure.nonRetryable).toBe(true);
    expect(failure.message).toContain(
      "Item 'fc_scripted_1_0' of type 'function_call' was provided without its required 'reasoning' item: 'rs_scripted_1'.",
    );
    expect(scripted.server.remaining()).toBe(1);
  });

  it('says each tool choice the Responses way, without parallel calls when none may be made', async () => {
    const provider = await providerFor([{ content: 'a' }, { content: 'b' }, { content: 'c' }, { content: 'd' }]);
    const ask = (toolChoice: Parameters<typeof provider.complete>[0]['toolChoice']) =>
      provider.complete({ messages: [{ role: 'user', content: 'x' }], tools: [readFileTool], model: '', toolChoice });
    await ask('required');
    await ask('none');
    await ask({ name: 'ReadFile' });
    await provider.complete({
      messages: [{ role: 'user', content: 'x' }],
      tools: [],
      model: '',
      toolChoice: 'required',
    });
    const sent = scripted.server.requests.map(({ tool_choice, parallel_tool_calls }) => ({
      tool_choice,
      parallel_tool_calls,
    }));
    expect(sent).toEqual([
      { tool_choice: 'required', parallel_tool_calls: true },
      { tool_choice: 'none', parallel_tool_calls: false },
      { tool_choice: { type: 'function', name: 'ReadFile' }, parallel_tool_calls: true },
      // No tools, no choice: the API rejects a tool choice without tools.
      { tool_choice: undefined, parallel_tool_calls: undefined },
    ]);
    const failure = await failureOf(ask({ name: 'WriteFile' }));
    expect(failure.type).toBe('ModelInvocationError.BadRequest');
  });

  it('reports cached and reasoning tokens, and the ledger bills cached input at the cached price', async () => {
    const provider = await providerFor([
      {
        model: 'gpt-4.1-mini',
        reasoning: 'brief',
        content: 'ok',
        usage: { prompt_tokens: 10_000, completion_tokens: 900, cached_tokens: 8_000, reasoning_tokens: 600 },
      },
    ]);
    const turn = await provider.complete({ messages: [{ role: 'user', content: 'x' }], tools: [], model: '' });
    expect(turn.usage).toEqual({
      promptTokens: 10_000,
      completionTokens: 900,
      totalTokens: 10_900,
      cachedTokens: 8_000,
      reasoningTokens: 600,
    });
    const ledger = recordModelCall(emptyCostLedger(), turn.usage, turn.model);
    const { input, output, cachedInput } = priceFor('gpt-4.1-mini')!.price;
    expect(cachedInput).toBeLessThan(input);
    expect(ledger.cachedTokens).toBe(8_000);
    expect(ledger.costUsd).toBeCloseTo((2_000 * input + 8_000 * cachedInput! + 900 * output) / 1_000_000, 12);
    expect(ledger.costUsd).toBeLessThan(costOf({ promptTokens: 10_000, completionTokens: 900 }, turn.model).usd);
  });

  it('cuts the last call off where the stream stopped, and reports no usage', async () => {
    const provider = await providerFor([
      {
        tool_calls: [
          { id: 'whole', name: 'ReadFile', arguments: { path: 'a' } },
          { id: 'cut', name: 'ReadFile', arguments: { path: 'a-long-path-name' } },
        ],
        chunk_size: 2,
        truncate_stream: true,
      },
    ]);
    const turn = await provider.complete({
      messages: [{ role: 'user', content: 'x' }],
      tools: [readFileTool],
      model: '',
    });
    expect(turn.finishReason).toBe('other');
    expect(turn.toolCalls).toEqual([
      { id: 'whole', name: 'ReadFile', arguments: '{"path":"a"}', complete: true },
      { id: 'cut', name: 'ReadFile', arguments: '{"path":"a-lo', complete: false },
    ]);
    expect(turn.usage).toEqual({ promptTokens: 0, completionTokens: 0, totalTokens: 0 });
  });

  it('reports an answer stopped at max_output_tokens as finish reason length', async () => {
    const provider = await providerFor([{ content: 'The answer is', finish_reason: 'length' }]);
    const turn = await provider.complete({ messages: [{ role: 'user', content: 'x' }], tools: [], model: '' });
    expect(turn).toMatchObject({ content: 'The answer is', finishReason: 'length' });
  });

  it('maps HTTP errors and an error event mid-stream to retryable or not', async () => {
    const provider = await providerFor([
      { error: { status: 429, headers: { 'retry-after': '7' } } },
      { error: { status: 400, body: { error: { message: 'bad input', code: 'invalid_value' } } } },
      { content: 'half of this arrives', chunk_size: 2, stream_error: { code: 'server_error', message: 'overloaded' } },
    ]);
    const ask = () => provider.complete({ messages: [{ role: 'user', content: 'x' }], tools: [], model: '' });
    const limited = await failureOf(ask());
    expect(limited).toMatchObject({
      type: 'ModelInvocationError.RateLimited',
      nonRetryable: false,
      nextRetryDelay: 7000,
    });
    const bad = await failureOf(ask());
    expect(bad).toMatchObject({ type: 'ModelInvocationError.BadRequest', nonRetryable: true });
    expect(bad.message).toContain('bad input');
    const broken = await failureOf(ask());
    expect(broken).toMatchObject({ type: 'ModelInvocationError.StreamError', nonRetryable: false });
    expect(broken.message).toBe('overloaded');
  });

  it('throws on a failed response: retried when transient, not when the request is at fault', () => {
    const failed = (code: string) => () =>
      new ResponsesAssembler('m').push({
        type: 'response.failed',
        response: { status: 'failed', error: { code, message: `${code} happened` } },
      });
    const transient = toModelFailure(captured(failed('server_error'))) as ApplicationFailure;
    expect(transient).toMatchObject({ type: 'ModelInvocationError.StreamError', nonRetryable: false });
    const refused = toModelFailure(captured(failed('invalid_prompt'))) as ApplicationFailure;
    expect(refused).toMatchObject({ type: 'ModelInvocationError.BadRequest', nonRetryable: true });
    expect(refused.message).toContain('invalid_prompt happened');
  });

  it('is the openai-responses provider, and the worker key goes only to its own endpoint', async () => {
    const server = await scripted.start([{ content: 'own' }, { content: 'other' }]);
    const other = await startScriptedModelServer({ script: [{ content: 'other' }] });
    try {
      const resolve = createProviderResolver({ OPENAI_API_KEY: 'sk-worker', OPENAI_BASE_URL: server.url });
      const own = await resolve({ provider: 'openai-responses' });
      expect(own.provider.name).toBe('openai-responses');
      await own.provider.complete({ messages: [{ role: 'user', content: 'x' }], tools: [], model: own.model });
      const elsewhere = await resolve({ provider: 'openai-responses', baseUrl: other.url });
      await elsewhere.provider.complete({ messages: [{ role: 'user', content: 'x' }], tools: [], model: 'm' });
      expect(server.authorizations).toEqual(['Bearer sk-worker']);
      expect(other.authorizations).toEqual(['Bearer unused']);
      await expect(createProviderResolver({})({ provider: 'openai-responses' })).rejects.toThrow(
        /OPENAI_API_KEY is not set/,
      );
    } finally {
      await other.close();
    }
  });
});

function captured(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  throw new Error('expected a throw');
}
