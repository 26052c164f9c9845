// Node: the Anthropic Messages adapter (`--provider anthropic`), streaming, through the official SDK.
import Anthropic, { APIError, APIUserAbortError } from '@anthropic-ai/sdk';
import type { RawMessageStreamEvent } from '@anthropic-ai/sdk/resources/messages';
import type { ModelTurn } from '../../protocol/model.js';
import { maxTokensFor, toAnthropicRequest } from './anthropic-request.js';
import { AnthropicStreamAssembler, anthropicDeltaRule } from './anthropic-stream.js';
import type { ModelProvider, ProviderRequest } from '../model-provider.js';
import { OutputMeter } from '../output-cap.js';
import { maxModelOutputBytesFromEnv } from '../output-limit.js';
import { eventsIn } from '../delta-runs.js';
import type { EventStreamOptions } from '../sse-reader.js';
import { readEventData } from '../sse-reader.js';
import type { ProviderFactory } from '../setup.js';
import { PLACEHOLDER_API_KEY, configurationError, nonEmpty } from '../setup.js';

/** Where Anthropic's own API is, when neither the options nor the worker name an endpoint. */
const ANTHROPIC_API_ORIGIN = 'https://api.anthropic.com';

/** Options of `createAnthropicMessagesProvider`. The key comes from the worker's environment, never a workflow input. */
export interface AnthropicMessagesProviderOptions {
  apiKey: string;
  /** The API's origin (the SDK adds `/v1/messages`); a URL ending in `/v1` is accepted too. Anthropic's when omitted. */
  baseURL?: string;
  /** Model used when a request names none. */
  defaultModel: string;
  /** `max_tokens` of every request; by default maxTokensFor(model). */
  maxTokens?: number;
  /** A fetch implementation to use instead of the global one. */
  fetch?: typeof globalThis.fetch;
  /** The cap of one answer's output; DURABLE_AGENT_MAX_MODEL_OUTPUT_BYTES (or its default) when omitted. */
  maxOutputBytes?: number;
}

/** A ModelProvider on the Messages API, streaming, with the SDK's own retries off (Temporal retries). */
export function createAnthropicMessagesProvider(options: AnthropicMessagesProviderOptions): ModelProvider {
  const maxOutputBytes = options.maxOutputBytes ?? maxModelOutputBytesFromEnv();
  const client = new Anthropic({
    // Always explicit, so the SDK never falls back to credentials of its own (ANTHROPIC_AUTH_TOKEN, profile files)
    // and never sends them to a URL a run named.
    apiKey: options.apiKey,
    authToken: null,
    baseURL: anthropicBaseURL(options.baseURL ?? ANTHROPIC_API_ORIGIN),
    maxRetries: 0,
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
  return {
    name: 'anthropic',
    complete: (request) => completeStreaming(client, options.defaultModel, options.maxTokens, maxOutputBytes, request),
  };
}

async function completeStreaming(
  client: Anthropic,
  defaultModel: string,
  maxTokens: number | undefined,
  maxOutputBytes: number,
  request: ProviderRequest,
): Promise<ModelTurn> {
  const model = request.model || defaultModel;
  const body = toAnthropicRequest({
    messages: request.messages,
    tools: request.tools,
    outputSchema: request.outputSchema,
    toolChoice: request.toolChoice,
    model,
    maxTokens: maxTokens ?? maxTokensFor(model),
  });
  // The SDK makes the request and maps HTTP errors; the events are read by readEventData, in linear time, with runs of
  // deltas read as one (the SDK's reader takes each of a megabyte's 260,000 events through its own generators).
  const response = await client.messages
    .create(body, { signal: request.signal, ...(request.headers ? { headers: request.headers } : {}) })
    .asResponse();
  const meter = new OutputMeter(maxOutputBytes);
  const assembler = new AnthropicStreamAssembler(model, meter, request.onDelta);
  try {
    // Past the cap the assembler throws; leaving the loop cancels the body's reader, which closes the request.
    for await (const events of readEventData(response, meter, ANTHROPIC_EVENTS)) {
      for (const event of events) assembler.push(event, eventsIn(event));
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

/**
 * The Messages stream as the SDK reads it: `ping`s and events without a name are passed over, an `error` event is the
 * SDK's APIError with the error's type (an overload mid-stream is retried like a 529).
 */
const ANTHROPIC_EVENTS: EventStreamOptions<RawMessageStreamEvent> = {
  merge: anthropicDeltaRule,
  skip: (name) => name === undefined || name === 'ping',
  errorOf: (data, name, headers) => {
    if (name !== 'error') return undefined;
    const body = data as { error?: { type?: string } } | null;
    const type = body?.error?.type as ConstructorParameters<typeof APIError>[4];
    return new APIError(undefined, body ?? undefined, undefined, headers, type);
  },
};

/** The SDK adds `/v1/messages` itself, so a base URL given as `…/v1` (as OpenAI-style ones are) loses that suffix. */
export function anthropicBaseURL(url: string): string {
  return url.replace(/\/+$/, '').replace(/\/v1$/, '');
}

/**
 * `anthropic` in the provider table: the run's `--base-url`, else ANTHROPIC_BASE_URL, else Anthropic's API. The key
 * goes only where the worker may send it (Anthropic's API, its own ANTHROPIC_BASE_URL, DURABLE_AGENT_KEY_ORIGINS), so a
 * run naming another URL cannot collect it.
 */
export const createProvider: ProviderFactory = ({ env, credentials, baseURL: runBaseURL, model, keyFor }) => {
  const named = runBaseURL ?? nonEmpty(env[credentials.baseUrlVariable]);
  if (!nonEmpty(env[credentials.keyVariable]) && !named) {
    throw configurationError(
      "ANTHROPIC_API_KEY is not set in the worker's environment (set ANTHROPIC_BASE_URL instead for an endpoint without keys).",
    );
  }
  const baseURL = named ?? credentials.apiOrigin;
  return createAnthropicMessagesProvider({
    apiKey: keyFor(baseURL) ?? PLACEHOLDER_API_KEY,
    baseURL,
    defaultModel: model,
    maxOutputBytes: maxModelOutputBytesFromEnv(env),
  });
};
