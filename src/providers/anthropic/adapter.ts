// Node: the Anthropic Messages adapter (`--provider anthropic`), streaming, through the official SDK.
import Anthropic, { APIUserAbortError } from '@anthropic-ai/sdk';
import type { ModelTurn } from '../../protocol/model.js';
import { maxTokensFor, toAnthropicRequest } from './anthropic-request.js';
import { AnthropicStreamAssembler } from './anthropic-stream.js';
import type { ModelProvider, ProviderRequest } from '../model-provider.js';
import { OutputMeter, capEventSize, maxModelOutputBytesFromEnv } from '../output-cap.js';
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
    // The SDK reads the stream itself: one event that never ends is stopped before it reaches the SDK's buffer.
    fetch: capEventSize(options.fetch ?? globalThis.fetch, maxOutputBytes),
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
  const stream = await client.messages.create(body, { signal: request.signal });
  const assembler = new AnthropicStreamAssembler(model, new OutputMeter(maxOutputBytes), request.onDelta);
  // Past the cap the assembler throws; leaving the loop makes the SDK abort the request.
  for await (const event of stream) {
    assembler.push(event);
    request.onProgress?.(assembler.progress());
  }
  // The SDK ends an aborted stream quietly: an aborted call must not look like an answer cut short.
  if (request.signal?.aborted) throw new APIUserAbortError();
  return assembler.finish();
}

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
