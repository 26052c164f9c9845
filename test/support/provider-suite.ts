// The provider tests' shared scaffolding: a scripted model server per test, each adapter made against it, the tool
// contracts they are offered, and the cases every adapter must pass (`describeProviderCases`), run once per adapter.
import { ApplicationFailure } from '@temporalio/common';
import * as anthropic from '@anthropic-ai/sdk';
import * as openai from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { toModelFailure } from '../../src/activities/failures.js';
import { emptyCostLedger, recordModelCall } from '../../src/core/pricing.js';
import type { ChatMessage, ModelTurn, ToolSchema, Usage } from '../../src/protocol/model.js';
import { createAnthropicMessagesProvider } from '../../src/providers/anthropic/adapter.js';
import type { ModelProvider } from '../../src/providers/model-provider.js';
import { createOpenAIChatProvider } from '../../src/providers/openai-chat/adapter.js';
import { createOpenAIResponsesProvider } from '../../src/providers/openai-responses/adapter.js';
import { startScriptedModelServer } from '../../src/scripted-model/server.js';
import type { ScriptTurn, ScriptedModelServer, ScriptedModelServerOptions } from '../../src/scripted-model/server.js';
import type { ToolContract } from '../../src/tools/define-tool.js';
import { defineTool } from '../../src/tools/define-tool.js';

/** A read-only tool of this input schema: a zod one is exported strict, a declared JSON Schema (MCP's) as given. */
function testTool(
  name: string,
  description: string,
  input: { inputSchema: z.ZodType<Record<string, unknown>>; jsonSchema?: Record<string, unknown> },
): ToolContract {
  return defineTool({
    name,
    description,
    ...input,
    category: 'read',
    confirmation: 'none',
    isConcurrencySafe: () => true,
    pathParams: [],
    activity: () => ({ startToCloseTimeoutMs: 1_000, maximumAttempts: 1 }),
    summarize: () => name,
  });
}

/** A tool whose input schema is declared as JSON Schema (as an MCP server declares it): sent as given, not strict. */
export function declaredTool(name: string, description: string, parameters: Record<string, unknown>): ToolContract {
  return testTool(name, description, { inputSchema: z.record(z.string(), z.unknown()), jsonSchema: parameters });
}

/** The parameters of `readFileTool`. */
export const READ_FILE_PARAMETERS = {
  type: 'object',
  properties: { path: { type: 'string' } },
  required: ['path'],
} as const;

/** The one tool most cases offer. */
export const readFileTool = declaredTool('ReadFile', 'Read a file', READ_FILE_PARAMETERS);

/** The same tool with a zod schema: exported for strict function calling. */
export const strictReadFileTool = testTool('ReadFile', 'Read a file', { inputSchema: z.object({ path: z.string() }) });

/** `readFileTool` as a function description (Chat Completions' tool): what the scripted server records for it. */
export const readFileSchema: ToolSchema = {
  type: 'function',
  function: { name: 'ReadFile', description: 'Read a file', parameters: READ_FILE_PARAMETERS, strict: false },
};

/** A scripted server per test, closed after it. */
export function useScriptedServer(): {
  start(script: ScriptTurn[], options?: Omit<ScriptedModelServerOptions, 'script'>): Promise<ScriptedModelServer>;
  readonly server: ScriptedModelServer;
} {
  let current: ScriptedModelServer | undefined;
  afterEach(async () => {
    await current?.close();
    current = undefined;
  });
  return {
    async start(script, options = {}) {
      current = await startScriptedModelServer({ script, ...options });
      return current;
    },
    get server() {
      if (!current) throw new Error('no scripted server started in this test');
      return current;
    },
  };
}

/** How the model activity reports a call's error: the failure it throws for it. */
export async function modelFailureOf(promise: Promise<unknown>): Promise<ApplicationFailure> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error, 'the call should have failed').toBeDefined();
  const failure = toModelFailure(error);
  expect(failure).toBeInstanceOf(ApplicationFailure);
  return failure as ApplicationFailure;
}

/** The transcript after `turn`, as the workflow writes it: the assistant message, then one result per call. */
export function continued(
  messages: ChatMessage[],
  turn: ModelTurn,
  result = (id: string) => `result of ${id}`,
): ChatMessage[] {
  return [
    ...messages,
    {
      role: 'assistant',
      content: turn.content,
      tool_calls: turn.toolCalls.map((call) => ({
        id: call.id!,
        type: 'function' as const,
        function: { name: call.name!, arguments: call.arguments! },
      })),
      ...(turn.providerItems ? { provider_items: turn.providerItems } : {}),
    },
    ...turn.toolCalls.map((call) => ({ role: 'tool' as const, tool_call_id: call.id!, content: result(call.id!) })),
  ];
}

/** One adapter under test, and what differs in how its SDK and its API say the same things. */
export interface AdapterUnderTest {
  name: string;
  /** The adapter on the scripted server at `url` (its default model `scripted-model`). */
  make(url: string, options?: { maxOutputBytes?: number }): ModelProvider;
  /** The usage of a turn that reported these counts (Anthropic always reports its cache counts). */
  usage(promptTokens: number, completionTokens: number): Usage;
  /** What its SDK throws for an error event inside a stream, and for an aborted request. */
  streamErrorClass: abstract new (...args: never[]) => Error;
  abortErrorClass: abstract new (...args: never[]) => Error;
}

const plainUsage = (promptTokens: number, completionTokens: number): Usage => ({
  promptTokens,
  completionTokens,
  totalTokens: promptTokens + completionTokens,
});

/** The three adapters, each on its own API. */
export const ADAPTERS: Readonly<Record<'chat' | 'responses' | 'anthropic', AdapterUnderTest>> = {
  chat: {
    name: 'openai (Chat Completions)',
    make: (url, options = {}) =>
      createOpenAIChatProvider({ apiKey: 'test-key', baseURL: url, defaultModel: 'scripted-model', ...options }),
    usage: plainUsage,
    streamErrorClass: openai.APIError,
    abortErrorClass: openai.APIUserAbortError,
  },
  responses: {
    name: 'openai-responses',
    make: (url, options = {}) =>
      createOpenAIResponsesProvider({ apiKey: 'test-key', baseURL: url, defaultModel: 'scripted-model', ...options }),
    usage: plainUsage,
    streamErrorClass: openai.APIError,
    abortErrorClass: openai.APIUserAbortError,
  },
  anthropic: {
    name: 'anthropic',
    make: (url, options = {}) =>
      createAnthropicMessagesProvider({ apiKey: 'test-key', baseURL: url, defaultModel: 'scripted-model', ...options }),
    usage: (promptTokens, completionTokens) => ({
      ...plainUsage(promptTokens, completionTokens),
      cachedTokens: 0,
      cacheWriteTokens: 0,
    }),
    streamErrorClass: anthropic.APIError,
    abortErrorClass: anthropic.APIUserAbortError,
  },
};

const ask = (provider: ModelProvider, extra: Partial<Parameters<ModelProvider['complete']>[0]> = {}) =>
  provider.complete({ messages: [{ role: 'user', content: 'x' }], tools: [], model: 'm', ...extra });

/** The cases every adapter passes, through its real SDK over HTTP against the scripted server's dialect of its API. */
export function describeProviderCases(adapter: AdapterUnderTest): void {
  describe(`${adapter.name}: what every provider does`, () => {
    const scripted = useScriptedServer();
    const providerFor = async (script: ScriptTurn[]) => adapter.make((await scripted.start(script)).url);

    it('streams text and parallel tool calls split into small deltas and returns them whole', async () => {
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
      const progress: number[] = [];
      const turn = await ask(provider, {
        messages: [{ role: 'user', content: 'read' }],
        tools: [readFileTool],
        model: '',
        onProgress: (seen) => progress.push(seen.chunks),
      });
      expect(turn).toEqual({
        content: 'Reading both.',
        toolCalls: [
          { id: 'call_1', name: 'ReadFile', arguments: '{"path":"src/a.ts"}', complete: true },
          { id: 'call_1_1', name: 'ReadFile', arguments: '{"path":"README.md"}', complete: true },
        ],
        finishReason: 'tool_calls',
        usage: adapter.usage(40, 12),
        model: 'scripted-model',
      });
      expect(progress.at(-1)).toBeGreaterThan(20);
    });

    it('records the model that answered, not the one it asked for, and prices it as that model', async () => {
      const provider = await providerFor([{ model: 'qwen2.5-coder', content: 'hi' }, { content: 'again' }]);
      const answered = await ask(provider, { model: 'gpt-4o-mini' });
      expect(scripted.server.requests[0]).toMatchObject({ model: 'gpt-4o-mini' });
      expect(answered.model).toBe('qwen2.5-coder');
      // Not in the price table: counted at $0 and named as unpriced, never priced as the model asked for.
      const ledger = recordModelCall(emptyCostLedger(), answered.usage, answered.model);
      expect(ledger).toMatchObject({ costUsd: 0, unpricedModels: ['qwen2.5-coder'] });
      // A response that names the requested model is recorded as such.
      expect((await ask(provider, { model: 'gpt-4o-mini' })).model).toBe('gpt-4o-mini');
    });

    it('sends no tools and no tool choice when the request has none', async () => {
      const provider = await providerFor([{ content: 'ok' }]);
      await ask(provider, { toolChoice: 'required' });
      expect(scripted.server.requests[0]).not.toHaveProperty('tools');
      expect(scripted.server.requests[0]).not.toHaveProperty('tool_choice');
      expect(scripted.server.requests[0]).not.toHaveProperty('parallel_tool_calls');
    });

    it('delivers a malformed argument string verbatim', async () => {
      const malformed = "{path: 'a.ts', limit: 10,}";
      const provider = await providerFor([
        { tool_calls: [{ id: 'c', name: 'read_file', arguments: malformed }], chunk_size: 4 },
      ]);
      const turn = await ask(provider, { tools: [readFileTool] });
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
      const turn = await ask(provider, { tools: [readFileTool] });
      expect(turn.finishReason).toBe('other');
      expect(turn.toolCalls.map((call) => call.complete)).toEqual([true, false]);
      expect(turn.toolCalls[0]).toMatchObject({ id: 'a', name: 'ReadFile', arguments: '{"path":"one.ts"}' });
      expect('{"command":"npm test -- --run"}'.startsWith(turn.toolCalls[1]!.arguments!)).toBe(true);
    });

    it('reports streaming progress as it goes, the last with everything received', async () => {
      const provider = await providerFor([{ content: 'abcdefghij', chunk_size: 2 }]);
      const progress: number[] = [];
      await ask(provider, { onProgress: (update) => progress.push(update.contentChars) });
      expect(progress.at(-1)).toBe(10);
      expect(progress.length).toBeGreaterThanOrEqual(1);
      expect(progress).toEqual([...progress].sort((left, right) => left - right));
    });

    it('throws the SDK error for an HTTP error turn, with its status and retry-after', async () => {
      const provider = await providerFor([{ error: { status: 429, headers: { 'retry-after': '3' } } }]);
      const failure = await ask(provider).catch((error: unknown) => error);
      expect(failure).toMatchObject({ status: 429 });
      expect((failure as { headers: Headers }).headers.get('retry-after')).toBe('3');
      expect(toModelFailure(failure)).toMatchObject({
        type: 'ModelInvocationError.RateLimited',
        nonRetryable: false,
        nextRetryDelay: 3000,
      });
    });

    it("throws the stream's error event as the SDK's error without a status, retried", async () => {
      const provider = await providerFor([
        {
          content: 'half of this arrives',
          chunk_size: 2,
          stream_error: { code: 'server_error', message: 'overloaded' },
        },
      ]);
      const failure = await ask(provider).catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(adapter.streamErrorClass);
      expect(failure).toMatchObject({ status: undefined });
      expect(toModelFailure(failure)).toMatchObject({ nonRetryable: false });
    });

    it('rejects when aborted while waiting for the answer', async () => {
      const provider = await providerFor([{ content: 'late', delay_ms: 5_000 }]);
      const controller = new AbortController();
      const pending = ask(provider, { signal: controller.signal });
      setTimeout(() => controller.abort(), 50);
      await expect(pending).rejects.toBeInstanceOf(adapter.abortErrorClass);
    });

    it('maps a refused connection to a retryable Connection failure', async () => {
      const failure = await modelFailureOf(ask(adapter.make('http://127.0.0.1:9/v1')));
      expect(failure).toMatchObject({ type: 'ModelInvocationError.Connection', nonRetryable: false });
    });
  });
}
