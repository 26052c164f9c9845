// Node: turns a run's ModelSelection plus the worker's environment into a provider. Secrets come only from the
// environment; the selection (recorded in workflow history) may name an endpoint but never carries a key.
import { ApplicationFailure } from '@temporalio/common';
import type { ModelSelection } from '../protocol/model.js';
import type { ModelProvider } from './model-provider.js';
import { withReactFallback } from './react/fallback.js';
import { createReactProvider } from './react/protocol.js';
import type { WorkerCredentials } from './setup.js';
import { nonEmpty, trustedOrigins, workerKeyFor } from './setup.js';
import { PROVIDERS, PROVIDER_NAMES, providerLine } from './table.js';

export { PLACEHOLDER_API_KEY } from './setup.js';

/** The model used when neither the run nor the worker names one. */
export const DEFAULT_MODEL = 'gpt-4.1-mini';

/** A provider ready to call and the model to ask for. */
export interface ResolvedProvider {
  provider: ModelProvider;
  model: string;
}

/** Resolves a run's model selection against the worker's configuration (loading the provider's folder once). */
export type ProviderResolver = (selection: ModelSelection) => Promise<ResolvedProvider>;

/** The default provider's credentials (OPENAI_API_KEY, OPENAI_BASE_URL). */
const OPENAI_CREDENTIALS: WorkerCredentials = PROVIDERS[0].credentials;

/** OPENAI_API_KEY when it may be sent to `baseURL` (`workerKeyFor`). */
export function apiKeyFor(
  env: NodeJS.ProcessEnv,
  baseURL: string | undefined,
  origins = trustedOrigins(env, OPENAI_CREDENTIALS),
): string | undefined {
  return workerKeyFor(env, OPENAI_CREDENTIALS, baseURL, origins);
}

/**
 * Reads the provider's variables (its line's key and base URL, e.g. OPENAI_API_KEY, OPENAI_BASE_URL),
 * DURABLE_AGENT_MODEL and DURABLE_AGENT_PROVIDER; fields of the selection override them. Providers are cached per
 * endpoint so calls share one connection pool, and per tool protocol (`native`, else `react`: tools described in the
 * prompt, for models without function calling).
 */
export function createProviderResolver(env: NodeJS.ProcessEnv): ProviderResolver {
  const cache = new Map<string, ModelProvider>();
  // The origins each provider's key may go to, read once: the environment does not change while the worker runs.
  const origins = new Map<string, Set<string>>(
    PROVIDERS.map((line) => [line.name, trustedOrigins(env, line.credentials)]),
  );
  return async (selection) => {
    const name = nonEmpty(selection.provider) ?? nonEmpty(env.DURABLE_AGENT_PROVIDER) ?? PROVIDERS[0].name;
    const model = nonEmpty(selection.model) ?? nonEmpty(env.DURABLE_AGENT_MODEL) ?? DEFAULT_MODEL;
    const baseURL = nonEmpty(selection.baseUrl);
    const line = providerLine(name);
    if (!line) throw unknownProvider(name);
    const protocol = selection.toolProtocol ?? 'native';
    if (protocol !== 'native' && protocol !== 'react') throw unknownToolProtocol(protocol);
    const endpoint = `${name}\n${baseURL ?? ''}`;
    let native = cache.get(endpoint);
    if (!native) {
      const { createProvider } = await line.load();
      const { credentials } = line;
      const keyFor = (url: string | undefined) => workerKeyFor(env, credentials, url, origins.get(name));
      // Another call may have made it while the folder loaded: the first one made is the one kept.
      native = cache.get(endpoint) ?? createProvider({ env, name, credentials, baseURL, model, keyFor });
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
  const message = `Unknown provider "${name}". Providers: ${PROVIDER_NAMES.join(', ')}.`;
  return ApplicationFailure.create({ type: 'ModelInvocationError.UnsupportedProvider', message, nonRetryable: true });
}

function unknownToolProtocol(protocol: string): ApplicationFailure {
  const message = `Unknown tool protocol "${protocol}". Tool protocols: native, react.`;
  return ApplicationFailure.create({ type: 'ModelInvocationError.UnsupportedProvider', message, nonRetryable: true });
}
