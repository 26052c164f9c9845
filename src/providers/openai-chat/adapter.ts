// Node: the OpenAI Chat Completions adapter, streaming. Works against any OpenAI-compatible endpoint
// (OpenAI, vLLM, Ollama, llama.cpp, the scripted server) that accepts `stream_options.include_usage`.
import OpenAI, { APIUserAbortError } from 'openai';
import type {
  ChatCompletionCreateParamsStreaming,
  ChatCompletionMessageParam,
  ChatCompletionTool,
  ChatCompletionToolChoiceOption,
} from 'openai/resources/chat/completions';
import type { ChatMessage, ModelTurn, ToolChoice } from '../../protocol/model.js';
import type { ModelProvider, ProviderRequest } from '../model-provider.js';
import { functionTools } from '../model-provider.js';
import { OutputMeter } from '../output-cap.js';
import { maxModelOutputBytesFromEnv } from '../output-limit.js';
import { openAIEndpoint } from '../openai-endpoint.js';
import type { ProviderFactory } from '../setup.js';
import { configurationError, nonEmpty } from '../setup.js';
import { readChatChunks } from '../sse-reader.js';
import { eventsIn } from '../delta-runs.js';
import { StreamAssembler } from './stream-assembler.js';

/** Options of `createOpenAIChatProvider`. The key comes from the worker's environment, never from a workflow input. */
export interface OpenAIChatProviderOptions {
  apiKey: string;
  /** Base URL ending in `/v1`; the OpenAI API when omitted. */
  baseURL?: string;
  /** Model used when a request names none. */
  defaultModel: string;
  /** A fetch implementation to use instead of the global one. */
  fetch?: typeof globalThis.fetch;
  /** Provider name reported in `ModelProvider.name`; `openai` by default. */
  name?: string;
  /** The cap of one answer's output; DURABLE_AGENT_MAX_MODEL_OUTPUT_BYTES (or its default) when omitted. */
  maxOutputBytes?: number;
}

/**
 * `openai` and `scripted` in the provider table: Chat Completions on OpenAI or any compatible endpoint; `scripted` is
 * the same API served by the scripted server, so it needs that server's URL.
 */
export const createProvider: ProviderFactory = (setup) => {
  if (setup.name === 'scripted' && !(setup.baseURL ?? nonEmpty(setup.env[setup.credentials.baseUrlVariable]))) {
    throw configurationError(
      'Provider "scripted" needs the base URL of a scripted model server (--base-url or OPENAI_BASE_URL).',
    );
  }
  return createOpenAIChatProvider({
    name: setup.name,
    defaultModel: setup.model,
    maxOutputBytes: maxModelOutputBytesFromEnv(setup.env),
    ...openAIEndpoint(setup),
  });
};

/** A ModelProvider on the Chat Completions API, streaming, with the SDK's own retries off (Temporal retries). */
export function createOpenAIChatProvider(options: OpenAIChatProviderOptions): ModelProvider {
  const client = new OpenAI({
    apiKey: options.apiKey,
    baseURL: options.baseURL,
    maxRetries: 0,
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
  return {
    name: options.name ?? 'openai',
    complete: (request) =>
      completeStreaming(client, options.defaultModel, options.maxOutputBytes ?? maxModelOutputBytesFromEnv(), request),
  };
}

async function completeStreaming(
  client: OpenAI,
  defaultModel: string,
  maxOutputBytes: number,
  request: ProviderRequest,
): Promise<ModelTurn> {
  const model = request.model || defaultModel;
  const body: ChatCompletionCreateParamsStreaming = {
    model,
    messages: request.messages.map(toChatMessage),
    stream: true,
    // Some compatible servers reject stream_options; they need a server-side fix, not a client-side hack.
    stream_options: { include_usage: true },
  };
  const tools = functionTools(request);
  if (tools.length > 0) {
    // OpenAI rejects tool_choice and parallel_tool_calls when no tools are sent.
    // The function descriptions are Chat Completions' own tool shape.
    body.tools = tools as ChatCompletionTool[];
    body.tool_choice = toChatToolChoice(request.toolChoice ?? 'auto');
    // OpenAI rejects parallel_tool_calls with tool_choice none.
    if (body.tool_choice !== 'none') body.parallel_tool_calls = true;
  }
  // The SDK makes the request and maps HTTP errors; the body is read by readChatChunks, in linear time.
  const response = await client.chat.completions
    .create(body, { signal: request.signal, ...(request.headers ? { headers: request.headers } : {}) })
    .asResponse();
  const meter = new OutputMeter(maxOutputBytes);
  const assembler = new StreamAssembler(model, meter, request.onDelta);
  try {
    // Past the cap the assembler throws; leaving the loop cancels the body's reader, which closes the request.
    for await (const chunks of readChatChunks(response, meter)) {
      for (const chunk of chunks) assembler.push(chunk, eventsIn(chunk));
      request.onProgress?.(assembler.progress());
    }
  } catch (error) {
    // An aborted call must not look like an answer cut short, nor like a broken connection.
    if (request.signal?.aborted) throw new APIUserAbortError();
    throw error;
  }
  if (request.signal?.aborted) throw new APIUserAbortError();
  return assembler.finish();
}

/** A transcript message as Chat Completions takes it: the same fields, without other providers' items. */
export function toChatMessage(message: ChatMessage): ChatCompletionMessageParam {
  if (message.role !== 'assistant') return message;
  const { provider_items: _providerItems, ...chat } = message;
  return chat;
}

/** The project's tool choice in Chat Completions' terms. */
export function toChatToolChoice(choice: ToolChoice): ChatCompletionToolChoiceOption {
  return typeof choice === 'string' ? choice : { type: 'function', function: { name: choice.name } };
}
