// Node: model errors classified once, at the activity boundary. Temporal's retry policy is the only retry loop,
// so every error leaves here as an ApplicationFailure that says whether (and when) to try again.
import { ApplicationFailure, TemporalFailure } from '@temporalio/common';

/** Why a model call failed; the suffix of the `ModelInvocationError.<Reason>` failure type. */
export type ModelFailureReason =
  | 'BadRequest'
  | 'Unauthorized'
  | 'Forbidden'
  | 'NotFound'
  | 'Timeout'
  | 'Conflict'
  | 'UnprocessableEntity'
  | 'RateLimited'
  | 'Overloaded'
  | 'ClientError'
  | 'ServerError'
  | 'ContextLengthExceeded'
  | 'Connection'
  | 'StreamError'
  | 'Aborted'
  | 'Unexpected';

/** Prefix of every failure type produced here. */
export const MODEL_FAILURE_TYPE = 'ModelInvocationError';

const REASON_BY_STATUS: Readonly<Record<number, ModelFailureReason>> = {
  400: 'BadRequest',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'NotFound',
  408: 'Timeout',
  409: 'Conflict',
  422: 'UnprocessableEntity',
  429: 'RateLimited',
  // Anthropic's "overloaded_error": the API is busy for everyone, so it is retried like any 5xx.
  529: 'Overloaded',
};

const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([408, 409, 429]);

/** HTTP response headers as SDKs expose them: a Fetch `Headers` or a plain record. */
type HeaderSource = { get(name: string): string | null } | Record<string, string | string[] | undefined>;

/** The shape shared by the OpenAI and Anthropic SDK errors, matched structurally so any such SDK fits. */
interface HttpLikeError extends Error {
  status?: number;
  headers?: HeaderSource;
  code?: string | null;
  type?: string;
  requestID?: string | null;
}

/** Maps any error from a model call to what the activity should throw. TemporalFailures pass through untouched. */
export function toModelFailure(error: unknown, now: number = Date.now()): Error {
  if (error instanceof TemporalFailure) return error;
  if (!(error instanceof Error)) {
    return ApplicationFailure.create({
      type: `${MODEL_FAILURE_TYPE}.Unexpected`,
      message: `Model call failed: ${String(error)}`,
    });
  }
  const httpError = error as HttpLikeError;
  const status = typeof httpError.status === 'number' ? httpError.status : undefined;
  const reason = reasonFor(httpError, status);
  const retryable = status === undefined || RETRYABLE_STATUSES.has(status) || status >= 500;
  const delay = retryable && httpError.headers ? retryAfterMs(httpError.headers, now) : undefined;
  const details =
    status === undefined ? [] : [{ status, code: httpError.code ?? null, requestId: httpError.requestID ?? null }];
  return ApplicationFailure.create({
    type: `${MODEL_FAILURE_TYPE}.${reason}`,
    message: error.message || `Model call failed (${reason})`,
    nonRetryable: !retryable,
    ...(delay !== undefined ? { nextRetryDelay: delay } : {}),
    details,
    cause: error,
  });
}

/** Throws `toModelFailure(error)`; for `catch` blocks that only rethrow. */
export function classifyModelError(error: unknown): never {
  throw toModelFailure(error);
}

/** The delay a server asked for: `retry-after-ms`, else `retry-after` in seconds or as an HTTP date. */
export function retryAfterMs(headers: HeaderSource, now: number = Date.now()): number | undefined {
  const milliseconds = Number.parseFloat(headerValue(headers, 'retry-after-ms') ?? '');
  if (Number.isFinite(milliseconds) && milliseconds >= 0) return Math.ceil(milliseconds);
  const retryAfter = headerValue(headers, 'retry-after')?.trim();
  if (!retryAfter) return undefined;
  if (/^\d+(\.\d+)?$/.test(retryAfter)) return Math.ceil(Number.parseFloat(retryAfter) * 1000);
  const date = Date.parse(retryAfter);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

function reasonFor(error: HttpLikeError, status: number | undefined): ModelFailureReason {
  if (status === undefined) {
    if (isSdkError(error, 'APIConnectionTimeoutError') || error.name === 'TimeoutError') return 'Timeout';
    if (isSdkError(error, 'APIConnectionError')) return 'Connection';
    if (isSdkError(error, 'APIUserAbortError') || error.name === 'AbortError') return 'Aborted';
    // Anthropic reports overload inside a stream too, as an `error` event.
    if (error.type === 'overloaded_error') return 'Overloaded';
    // An `error` event inside an SSE stream carries no status.
    if (isSdkError(error, 'APIError')) return 'StreamError';
    return 'Unexpected';
  }
  // Its own type only names the cause; it is handled like any 400: not retried, the request goes to the next model of
  // the run's fallback chain, and the run fails when the chain is exhausted. Nothing compacts the transcript in answer
  // to it: compaction runs before a step, when the transcript's estimated size reaches the run's `compactAtTokens`.
  if (error.code === 'context_length_exceeded' || isPromptTooLong(error)) return 'ContextLengthExceeded';
  return REASON_BY_STATUS[status] ?? (status >= 500 ? 'ServerError' : 'ClientError');
}

/**
 * Whether `error` is an instance of the SDK error class `name`. The OpenAI and Anthropic SDKs share one error
 * hierarchy (APIError > APIConnectionError > APIConnectionTimeoutError, APIUserAbortError), matched by class name so
 * that classifying an error does not load an SDK the worker never called (the Anthropic SDK costs a quarter of a
 * second of its start).
 */
function isSdkError(error: Error, name: string): boolean {
  let sawApiError = false;
  let matched = false;
  for (let proto: unknown = Object.getPrototypeOf(error); proto; proto = Object.getPrototypeOf(proto)) {
    const className = (proto as { constructor?: { name?: unknown } }).constructor?.name;
    if (className === name) matched = true;
    if (className === 'APIError') sawApiError = true;
  }
  return matched && sawApiError;
}

// Anthropic says it in the message of an invalid_request_error: "prompt is too long: 210000 tokens > 200000 maximum".
function isPromptTooLong(error: HttpLikeError): boolean {
  return error.status === 400 && error.type === 'invalid_request_error' && /prompt is too long/i.test(error.message);
}

function headerValue(headers: HeaderSource, name: string): string | undefined {
  if (typeof headers.get === 'function')
    return (headers as { get(name: string): string | null }).get(name) ?? undefined;
  const record = headers as Record<string, string | string[] | undefined>;
  const key = Object.keys(record).find((candidate) => candidate.toLowerCase() === name);
  const value = key === undefined ? undefined : record[key];
  return Array.isArray(value) ? value[0] : value;
}
