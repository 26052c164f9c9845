// Node: turns a run's ModelSelection plus the worker's environment into a provider. Secrets come only from the
// environment; the selection (recorded in workflow history) may name an endpoint but never carries a key.
import { commaList } from '../core/comma-list.js';
import { ApplicationFailure } from '@temporalio/common';
import type { ModelSelection } from '../protocol/model.js';
import type { ModelProvider } from './model-provider.js';
import { anthropicMessagesFactory } from './anthropic/adapter.js';
import { createOpenAIChatProvider } from './openai-chat/adapter.js';
import { maxModelOutputBytesFromEnv } from './output-cap.js';
import { openAIResponsesFactory } from './openai-responses/adapter.js';
import { withReactFallback } from './react/fallback.js';
import { createReactProvider } from './react/protocol.js';

/** The model used when neither the run nor the worker names one. */
export const DEFAULT_MODEL = 'gpt-4.1-mini';

// Local OpenAI-compatible servers (and the scripted one) ignore the key, but the client insists on one.
export const PLACEHOLDER_API_KEY = 'unused';

/** A provider ready to call and the model to ask for. */
export interface ResolvedProvider {
  provider: ModelProvider;
  model: string;
}

/** Resolves a run's model selection against the worker's configuration. */
export type ProviderResolver = (selection: ModelSelection) => ResolvedProvider;

/** Where OpenAI's own API is, when the worker names no endpoint. */
const OPENAI_API_ORIGIN = 'https://api.openai.com';

/** The variable naming further origins the worker's key may be sent to (comma-separated). */
export const KEY_ORIGINS_VARIABLE = 'DURABLE_AGENT_KEY_ORIGINS';

/** Where a provider's key and own endpoint are configured in the worker's environment. */
export interface WorkerCredentials {
  keyVariable: string;
  baseUrlVariable: string;
  /** The provider's own API, when the worker names no endpoint. */
  apiOrigin: string;
}

const OPENAI_CREDENTIALS: WorkerCredentials = {
  keyVariable: 'OPENAI_API_KEY',
  baseUrlVariable: 'OPENAI_BASE_URL',
  apiOrigin: OPENAI_API_ORIGIN,
};

/** The worker's own endpoint for these credentials (its base URL, else the provider's API) and the named origins. */
function trustedOrigins(env: NodeJS.ProcessEnv, credentials: WorkerCredentials = OPENAI_CREDENTIALS): Set<string> {
  const named = commaList(env[KEY_ORIGINS_VARIABLE]);
  return new Set([nonEmpty(env[credentials.baseUrlVariable]) ?? credentials.apiOrigin, ...named].map(originOf));
}

/**
 * The worker's key for a provider when it may be sent to `baseURL` (the provider's API when omitted): the worker's own
 * endpoint or an origin in DURABLE_AGENT_KEY_ORIGINS. Anything else gets no key, so a run naming another URL cannot
 * collect it.
 */
export function workerKeyFor(
  env: NodeJS.ProcessEnv,
  credentials: WorkerCredentials,
  baseURL: string | undefined,
  origins = trustedOrigins(env, credentials),
): string | undefined {
  const apiKey = nonEmpty(env[credentials.keyVariable]);
  return apiKey !== undefined && origins.has(originOf(baseURL ?? credentials.apiOrigin)) ? apiKey : undefined;
}

/** OPENAI_API_KEY when it may be sent to `baseURL` (`workerKeyFor`). */
export function apiKeyFor(
  env: NodeJS.ProcessEnv,
  baseURL: string | undefined,
  origins = trustedOrigins(env),
): string | undefined {
  return workerKeyFor(env, OPENAI_CREDENTIALS, baseURL, origins);
}

function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return url;
  }
}

/** What a provider factory gets: the worker's environment, the run's endpoint and model, and the key rule. */
export interface ProviderSetup {
  env: NodeJS.ProcessEnv;
  name: string;
  /** The run's `--base-url`, else none: each factory falls back to its own variable (OPENAI_BASE_URL, …). */
  baseURL: string | undefined;
  model: string;
  /** OPENAI_API_KEY when the worker may send it to `baseURL` (its own endpoint or DURABLE_AGENT_KEY_ORIGINS). */
  openaiKeyFor: (baseURL: string | undefined) => string | undefined;
}

/** Builds one provider; it throws `configurationError` when the worker lacks what the provider needs. */
export type ProviderFactory = (setup: ProviderSetup) => ModelProvider;

/**
 * Every provider a run can name. A provider is one adapter file and one line here; the CLI's `--provider` values
 * (PROVIDER_NAMES in config.ts) name the same set.
 */
export const PROVIDER_FACTORIES: Readonly<Record<string, ProviderFactory>> = {
  openai: openAIChatFactory,
  'openai-responses': openAIResponsesFactory,
  scripted: openAIChatFactory,
  // Called through a closure: the adapter imports this module's helpers, so its binding is read only when used.
  anthropic: (setup) => anthropicMessagesFactory(setup),
};

/** Chat Completions on OpenAI or any compatible endpoint; `scripted` is the same API served by the scripted server. */
function openAIChatFactory(setup: ProviderSetup): ModelProvider {
  if (setup.name === 'scripted' && !(setup.baseURL ?? nonEmpty(setup.env.OPENAI_BASE_URL))) {
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
}

/**
 * The endpoint and key of an OpenAI API provider (`openai`, `openai-responses`): the run's base URL, else
 * OPENAI_BASE_URL, else OpenAI's API, which needs OPENAI_API_KEY. The worker's key goes only to the endpoints it is
 * configured for: a run naming any other URL (anyone who can start a workflow can) reaches it without the key.
 */
export function openAIEndpoint({ env, name, baseURL: runBaseURL, openaiKeyFor }: ProviderSetup): {
  apiKey: string;
  baseURL?: string;
} {
  const baseURL = runBaseURL ?? nonEmpty(env.OPENAI_BASE_URL);
  if (name !== 'scripted' && !nonEmpty(env.OPENAI_API_KEY) && !baseURL) {
    throw configurationError(
      "OPENAI_API_KEY is not set in the worker's environment (set OPENAI_BASE_URL instead for a local endpoint without keys).",
    );
  }
  return { apiKey: openaiKeyFor(baseURL) ?? PLACEHOLDER_API_KEY, ...(baseURL ? { baseURL } : {}) };
}

/**
 * Reads the provider's variables (OPENAI_API_KEY, OPENAI_BASE_URL, …), DURABLE_AGENT_MODEL and DURABLE_AGENT_PROVIDER;
 * fields of the selection override them. Providers are cached per endpoint so calls share one connection pool, and
 * per tool protocol (`native`, else `react`: tools described in the prompt, for models without function calling).
 */
export function createProviderResolver(env: NodeJS.ProcessEnv): ProviderResolver {
  const cache = new Map<string, ModelProvider>();
  const keyOrigins = trustedOrigins(env);
  const openaiKeyFor = (baseURL: string | undefined) => apiKeyFor(env, baseURL, keyOrigins);
  return (selection) => {
    const name = nonEmpty(selection.provider) ?? nonEmpty(env.DURABLE_AGENT_PROVIDER) ?? 'openai';
    const model = nonEmpty(selection.model) ?? nonEmpty(env.DURABLE_AGENT_MODEL) ?? DEFAULT_MODEL;
    const baseURL = nonEmpty(selection.baseUrl);
    const factory = PROVIDER_FACTORIES[name];
    if (!factory) throw unknownProvider(name);
    const protocol = selection.toolProtocol ?? 'native';
    if (protocol !== 'native' && protocol !== 'react') throw unknownToolProtocol(protocol);
    const endpoint = `${name}\n${baseURL ?? ''}`;
    let native = cache.get(endpoint);
    if (!native) {
      native = factory({ env, name, baseURL, model, openaiKeyFor });
      cache.set(endpoint, native);
    }
    const key = `${endpoint}\n${protocol}`;
    let provider = cache.get(key);
    if (!provider) {
      // Native calls switch to the text protocol by themselves when the endpoint turns tools away.
      provider = protocol === 'react' ? createReactProvider(native) : withReactFallback(native);
      cache.set(key, provider);
    }
    return { provider, model };
  };
}

function unknownProvider(name: string): ApplicationFailure {
  const message = `Unknown provider "${name}". Providers: ${Object.keys(PROVIDER_FACTORIES).join(', ')}.`;
  return ApplicationFailure.create({ type: 'ModelInvocationError.UnsupportedProvider', message, nonRetryable: true });
}

function unknownToolProtocol(protocol: string): ApplicationFailure {
  const message = `Unknown tool protocol "${protocol}". Tool protocols: native, react.`;
  return ApplicationFailure.create({ type: 'ModelInvocationError.UnsupportedProvider', message, nonRetryable: true });
}

/** The worker lacks what a provider needs (a key, an endpoint): not retried, the operator must fix the worker. */
export function configurationError(message: string): ApplicationFailure {
  return ApplicationFailure.create({ type: 'ModelInvocationError.Configuration', message, nonRetryable: true });
}

export function nonEmpty(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed ? trimmed : undefined;
}
