// Node: the endpoint and key of the providers on OpenAI's APIs (`openai`, `openai-responses`, `scripted`).
import type { ProviderSetup } from './setup.js';
import { PLACEHOLDER_API_KEY, configurationError, nonEmpty } from './setup.js';

/**
 * The run's base URL, else OPENAI_BASE_URL, else OpenAI's API, which needs OPENAI_API_KEY. The worker's key goes only to
 * the endpoints it is configured for: a run naming any other URL (anyone who can start a workflow can) reaches it
 * without the key.
 */
export function openAIEndpoint({ env, name, credentials, baseURL: runBaseURL, keyFor }: ProviderSetup): {
  apiKey: string;
  baseURL?: string;
} {
  const baseURL = runBaseURL ?? nonEmpty(env[credentials.baseUrlVariable]);
  if (name !== 'scripted' && !nonEmpty(env[credentials.keyVariable]) && !baseURL) {
    throw configurationError(
      "OPENAI_API_KEY is not set in the worker's environment (set OPENAI_BASE_URL instead for a local endpoint without keys).",
    );
  }
  return { apiKey: keyFor(baseURL) ?? PLACEHOLDER_API_KEY, ...(baseURL ? { baseURL } : {}) };
}
