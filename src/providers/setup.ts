// Node: what every provider factory shares: the worker's credentials for it, the rule of which endpoints its key may
// go to, and the failures of a worker that lacks what a provider needs. The resolver and the adapters both import
// this file, never each other.
import { ApplicationFailure } from '@temporalio/common';
import { commaList } from '../core/comma-list.js';
import type { ModelProvider } from './model-provider.js';

// Local OpenAI-compatible servers (and the scripted one) ignore the key, but the client insists on one.
export const PLACEHOLDER_API_KEY = 'unused';

/** The variable naming further origins the worker's key may be sent to (comma-separated). */
export const KEY_ORIGINS_VARIABLE = 'DURABLE_AGENT_KEY_ORIGINS';

/** Where a provider's key and own endpoint are configured in the worker's environment. */
export interface WorkerCredentials {
  keyVariable: string;
  baseUrlVariable: string;
  /** The provider's own API, when the worker names no endpoint. */
  apiOrigin: string;
}

/** What a provider factory gets: the worker's environment, the run's endpoint and model, and the key rule. */
export interface ProviderSetup {
  env: NodeJS.ProcessEnv;
  /** The provider's name in the table (`openai`, `scripted`, …). */
  name: string;
  /** Its line's credentials (the key and base URL variables, the API's origin). */
  credentials: WorkerCredentials;
  /** The run's `--base-url`, else none: each factory falls back to its credentials' base URL variable. */
  baseURL: string | undefined;
  model: string;
  /** The worker's key when it may be sent to `baseURL` (its own endpoint or DURABLE_AGENT_KEY_ORIGINS; workerKeyFor). */
  keyFor: (baseURL: string | undefined) => string | undefined;
}

/** Builds one provider; it throws `configurationError` when the worker lacks what the provider needs. */
export type ProviderFactory = (setup: ProviderSetup) => ModelProvider;

/** What a provider's folder exports to the table: its factory. */
export interface ProviderModule {
  createProvider: ProviderFactory;
}

/** The worker's own endpoint for these credentials (its base URL, else the provider's API) and the named origins. */
export function trustedOrigins(env: NodeJS.ProcessEnv, credentials: WorkerCredentials): Set<string> {
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

function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return url;
  }
}

/** The worker lacks what a provider needs (a key, an endpoint): not retried, the operator must fix the worker. */
export function configurationError(message: string): ApplicationFailure {
  return ApplicationFailure.create({ type: 'ModelInvocationError.Configuration', message, nonRetryable: true });
}

export function nonEmpty(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed ? trimmed : undefined;
}
