// The model of a run given --base-url without one. The worker's default model belongs to the worker's endpoint: sent
// to another, it is at best refused and at worst answered, recorded and priced as a model that never ran. So the
// endpoint is asked what it serves (`GET <base-url>/models`), and a single model is the answer.
import OpenAI, { APIConnectionTimeoutError, APIError } from 'openai';
import { apiKeyFor, PLACEHOLDER_API_KEY } from '../providers/resolve-provider.js';
import { visibleText } from '../core/terminal-text.js';
import { UsageError } from './exit-codes.js';
import { color, log } from './output.js';

/** How long the endpoint has to list its models. */
export const LIST_MODELS_TIMEOUT_MS = 5_000;

/** Models named in the error when the endpoint serves several; the rest are counted. */
const MODELS_NAMED = 20;

/**
 * The one model `baseUrl` serves. A UsageError otherwise: it lists the models to choose from, or says why the endpoint
 * could not be asked. The key is sent only where the worker would send it (`apiKeyFor`).
 */
export async function onlyModelOf(
  baseUrl: string,
  { env = process.env, timeoutMs = LIST_MODELS_TIMEOUT_MS }: { env?: NodeJS.ProcessEnv; timeoutMs?: number } = {},
): Promise<string> {
  const needsModel = '--base-url needs --model (or DURABLE_AGENT_MODEL)';
  if (!isHttpUrl(baseUrl)) throw new UsageError(`--base-url must be an http(s) URL, got "${baseUrl}"`);
  const client = new OpenAI({
    apiKey: apiKeyFor(env, baseUrl) ?? PLACEHOLDER_API_KEY,
    baseURL: baseUrl,
    maxRetries: 0,
    timeout: timeoutMs,
  });
  let models: string[];
  try {
    const page = await client.models.list();
    models = [...new Set(page.data.map((model) => model.id).filter((id) => typeof id === 'string' && id !== ''))];
  } catch (error) {
    throw new UsageError(`${needsModel}: could not list the models of ${baseUrl} (${whyNot(error, timeoutMs)})`);
  }
  if (models.length === 1) return models[0]!;
  if (models.length === 0) throw new UsageError(`${needsModel}: ${baseUrl} lists no models`);
  const named = models.slice(0, MODELS_NAMED).join(', ');
  const more = models.length > MODELS_NAMED ? ` and ${models.length - MODELS_NAMED} more` : '';
  throw new UsageError(`${needsModel}: ${baseUrl} serves ${models.length} models: ${named}${more}`);
}

/** Why the list request failed, in a few words: the HTTP status and message, or what the connection did. */
function whyNot(error: unknown, timeoutMs: number): string {
  if (error instanceof APIConnectionTimeoutError) return `no answer within ${timeoutMs / 1000} s`;
  if (error instanceof APIError && error.status !== undefined) {
    const message = (error.error as { message?: unknown } | undefined)?.message;
    return typeof message === 'string' && message !== ''
      ? `HTTP ${error.status}: ${clip(message)}`
      : `HTTP ${error.status}`;
  }
  // Node's fetch reports a failed connection as "fetch failed", with what happened some causes down.
  const causes: unknown[] = [];
  for (let cause = error; cause instanceof Error && causes.length < 5; cause = cause.cause) causes.push(cause);
  const code = causes
    .map((cause) => (cause as { code?: unknown }).code)
    .find((value): value is string => typeof value === 'string');
  if (code === 'ECONNREFUSED') return 'connection refused';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return 'host not found';
  const deepest = causes.at(-1);
  return clip(code ?? (deepest instanceof Error ? deepest.message : String(error)));
}

function isHttpUrl(text: string): boolean {
  return URL.canParse(text) && ['http:', 'https:'].includes(new URL(text).protocol);
}

function clip(text: string): string {
  const line = text.split('\n')[0]!.trim();
  return line.length > 200 ? `${line.slice(0, 199)}…` : line;
}

/**
 * The model of a run given --base-url but no --model: DURABLE_AGENT_MODEL, else the one model the endpoint serves (the
 * worker's default names a model of the worker's own endpoint). The scripted provider keeps the worker's default.
 */
export async function modelOfBaseUrl(
  baseUrl: string | undefined,
  provider: string | undefined,
  configured: string | undefined,
): Promise<string | undefined> {
  if (baseUrl === undefined || provider === 'scripted') return undefined;
  if (configured) return configured;
  const model = await onlyModelOf(baseUrl);
  // The name is the endpoint's own text.
  log(`${color.bold('model')} ${visibleText(model)}  ${color.dim(`the one model ${visibleText(baseUrl)} serves`)}`);
  return model;
}
