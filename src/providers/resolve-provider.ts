// Node: turns a run's ModelSelection plus the worker's environment into a provider. Secrets come only from the
// environment; the selection (recorded in workflow history) may name an endpoint but never carries a key.
import { commaList } from '../core/comma-list.js';
import { ApplicationFailure } from '@temporalio/common';
import type { ModelSelection } from '../core/messages.js';
import type { ModelProvider } from './model-provider.js';
import { createOpenAIChatProvider } from './openai-chat.js';

/** The model used when neither the run nor the worker names one. */
export const DEFAULT_MODEL = 'gpt-4.1-mini';

/** Providers this worker can build. */
export const SUPPORTED_PROVIDERS = ['openai', 'scripted'] as const;

// Named in DURABLE_AGENT_PROVIDER's documented values but not built yet.
const PLANNED_PROVIDERS = ['openai-responses', 'anthropic'];

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

/** The worker's own endpoint (OPENAI_BASE_URL, else OpenAI's API) and the origins in DURABLE_AGENT_KEY_ORIGINS. */
function trustedOrigins(env: NodeJS.ProcessEnv): Set<string> {
  const named = commaList(env[KEY_ORIGINS_VARIABLE]);
  return new Set([nonEmpty(env.OPENAI_BASE_URL) ?? OPENAI_API_ORIGIN, ...named].map(originOf));
}

/**
 * OPENAI_API_KEY when it may be sent to `baseURL` (OpenAI's API when omitted): the worker's own endpoint or an origin in
 * DURABLE_AGENT_KEY_ORIGINS. Anything else gets no key, so a run naming another URL cannot collect it.
 */
export function apiKeyFor(
  env: NodeJS.ProcessEnv,
  baseURL: string | undefined,
  origins = trustedOrigins(env),
): string | undefined {
  const apiKey = nonEmpty(env.OPENAI_API_KEY);
  return apiKey !== undefined && origins.has(originOf(baseURL ?? OPENAI_API_ORIGIN)) ? apiKey : undefined;
}

function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return url;
  }
}

/**
 * Reads OPENAI_API_KEY, OPENAI_BASE_URL, DURABLE_AGENT_MODEL and DURABLE_AGENT_PROVIDER; fields of the selection
 * override them. Providers are cached per endpoint so calls share one connection pool.
 */
export function createProviderResolver(env: NodeJS.ProcessEnv): ProviderResolver {
  const cache = new Map<string, ModelProvider>();
  const keyOrigins = trustedOrigins(env);
  return (selection) => {
    const providerName = nonEmpty(selection.provider) ?? nonEmpty(env.DURABLE_AGENT_PROVIDER) ?? 'openai';
    const model = nonEmpty(selection.model) ?? nonEmpty(env.DURABLE_AGENT_MODEL) ?? DEFAULT_MODEL;
    const baseURL = nonEmpty(selection.baseUrl) ?? nonEmpty(env.OPENAI_BASE_URL);
    const apiKey = nonEmpty(env.OPENAI_API_KEY);
    if (providerName !== 'openai' && providerName !== 'scripted') throw unsupportedProvider(providerName);
    if (providerName === 'scripted' && !baseURL) {
      throw configurationError(
        'Provider "scripted" needs the base URL of a scripted model server (--base-url or OPENAI_BASE_URL).',
      );
    }
    if (providerName === 'openai' && !apiKey && !baseURL) {
      throw configurationError(
        "OPENAI_API_KEY is not set in the worker's environment (set OPENAI_BASE_URL instead for a local endpoint without keys).",
      );
    }
    // The worker's key goes only to the endpoints it is configured for: a run naming any other URL (anyone who can
    // start a workflow can) reaches it without the key.
    const sentKey = apiKeyFor(env, baseURL, keyOrigins);
    const key = `${providerName}\n${baseURL ?? ''}\n${sentKey !== undefined}`;
    let provider = cache.get(key);
    if (!provider) {
      provider = createOpenAIChatProvider({
        name: providerName,
        apiKey: sentKey ?? PLACEHOLDER_API_KEY,
        defaultModel: model,
        ...(baseURL ? { baseURL } : {}),
      });
      cache.set(key, provider);
    }
    return { provider, model };
  };
}

function unsupportedProvider(name: string): ApplicationFailure {
  const supported = SUPPORTED_PROVIDERS.join(', ');
  const message = PLANNED_PROVIDERS.includes(name)
    ? `Provider "${name}" is not available yet. Supported providers: ${supported}.`
    : `Unknown provider "${name}". Supported providers: ${supported}.`;
  return ApplicationFailure.create({ type: 'ModelInvocationError.UnsupportedProvider', message, nonRetryable: true });
}

function configurationError(message: string): ApplicationFailure {
  return ApplicationFailure.create({ type: 'ModelInvocationError.Configuration', message, nonRetryable: true });
}

function nonEmpty(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed ? trimmed : undefined;
}
