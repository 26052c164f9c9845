import { CONTEXT_LENGTH_EXCEEDED } from '../../src/core/run/steps.js';
import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import * as anthropic from '@anthropic-ai/sdk';
import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from 'openai';
import { describe, expect, it } from 'vitest';
import { classifyModelError, retryAfterMs, toModelFailure } from '../../src/activities/failures.js';

const httpError = (
  status: number,
  headers: Record<string, string> = {},
  body: object = { error: { message: `status ${status}` } },
) => APIError.generate(status, body, undefined, new Headers(headers));

function classify(error: unknown, now?: number): ApplicationFailure {
  const failure = toModelFailure(error, now);
  expect(failure).toBeInstanceOf(ApplicationFailure);
  return failure as ApplicationFailure;
}

describe('toModelFailure', () => {
  it.each([
    [400, 'BadRequest', false],
    [401, 'Unauthorized', false],
    [402, 'ClientError', false],
    [403, 'Forbidden', false],
    [404, 'NotFound', false],
    [408, 'Timeout', true],
    [409, 'Conflict', true],
    [413, 'ClientError', false],
    [422, 'UnprocessableEntity', false],
    [429, 'RateLimited', true],
    [500, 'ServerError', true],
    [502, 'ServerError', true],
    [503, 'ServerError', true],
    [529, 'Overloaded', true],
  ])('maps HTTP %i to ModelInvocationError.%s (retryable: %s)', (status, reason, retryable) => {
    const failure = classify(httpError(status));
    expect(failure.type).toBe(`ModelInvocationError.${reason}`);
    expect(failure.nonRetryable).toBe(!retryable);
    expect(failure.message).toContain(`status ${status}`);
    expect(failure.details).toEqual([{ status, code: null, requestId: null }]);
  });

  it.each([
    [new APIConnectionError({ message: 'ECONNREFUSED' }), 'Connection'],
    [new APIConnectionTimeoutError(), 'Timeout'],
    [new APIUserAbortError(), 'Aborted'],
    [new APIError(undefined, { message: 'upstream overloaded' }, undefined, undefined), 'StreamError'],
    [new anthropic.APIConnectionError({ message: 'ECONNRESET' }), 'Connection'],
    [new anthropic.APIConnectionTimeoutError(), 'Timeout'],
    [new anthropic.APIUserAbortError(), 'Aborted'],
    [new anthropic.APIError(undefined, { message: 'stream broke' }, undefined, new Headers()), 'StreamError'],
    [new TypeError('fetch failed'), 'Unexpected'],
    // Named like an SDK class, outside an SDK's hierarchy: nothing is read from the name alone.
    [new (class APIConnectionError extends Error {})('look-alike'), 'Unexpected'],
    [Object.assign(new Error('The operation timed out'), { name: 'TimeoutError' }), 'Timeout'],
  ])('maps %s to a retryable ModelInvocationError.%s', (error, reason) => {
    const failure = classify(error);
    expect(failure.type).toBe(`ModelInvocationError.${reason}`);
    expect(failure.nonRetryable).toBe(false);
    expect(failure.cause).toBe(error);
  });

  it('wraps thrown non-errors as retryable', () => {
    const failure = classify('socket hang up');
    expect(failure.type).toBe('ModelInvocationError.Unexpected');
    expect(failure.nonRetryable).toBe(false);
    expect(failure.message).toContain('socket hang up');
  });

  it('gives context-length errors their own non-retryable type', () => {
    const failure = classify(httpError(400, {}, { error: { message: 'too long', code: 'context_length_exceeded' } }));
    expect(failure.type).toBe(CONTEXT_LENGTH_EXCEEDED); // what the workflow compacts on
    expect(failure.nonRetryable).toBe(true);
  });

  it('passes Temporal failures through untouched', () => {
    const cancelled = new CancelledFailure('cancelled');
    const application = ApplicationFailure.create({ type: 'Custom', nonRetryable: true, message: 'mine' });
    expect(toModelFailure(cancelled)).toBe(cancelled);
    expect(toModelFailure(application)).toBe(application);
  });

  it('sets nextRetryDelay from retry-after-ms, retry-after seconds or an HTTP date', () => {
    const now = Date.parse('2025-01-01T00:00:00Z');
    expect(classify(httpError(429, { 'retry-after-ms': '1500', 'retry-after': '9' })).nextRetryDelay).toBe(1500);
    expect(classify(httpError(429, { 'retry-after': '2' })).nextRetryDelay).toBe(2000);
    expect(classify(httpError(503, { 'retry-after': 'Wed, 01 Jan 2025 00:00:30 GMT' }), now).nextRetryDelay).toBe(
      30_000,
    );
    expect(classify(httpError(503, { 'retry-after': 'soon' })).nextRetryDelay).toBeUndefined();
    expect(classify(httpError(500)).nextRetryDelay).toBeUndefined();
  });

  it('ignores retry-after on non-retryable errors', () => {
    expect(classify(httpError(401, { 'retry-after': '5' })).nextRetryDelay).toBeUndefined();
  });

  it('classifyModelError throws the mapped failure', () => {
    let thrown: unknown;
    try {
      classifyModelError(httpError(404));
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toMatchObject({ type: 'ModelInvocationError.NotFound', nonRetryable: true });
  });
});

describe('retryAfterMs', () => {
  it('reads plain header records case-insensitively', () => {
    expect(retryAfterMs({ 'Retry-After': '0.5' })).toBe(500);
    expect(retryAfterMs({ 'retry-after-ms': ['20'] })).toBe(20);
  });

  it('clamps a date in the past to zero and rejects garbage', () => {
    const now = Date.parse('2025-01-01T00:01:00Z');
    expect(retryAfterMs(new Headers({ 'retry-after': 'Wed, 01 Jan 2025 00:00:00 GMT' }), now)).toBe(0);
    expect(retryAfterMs(new Headers({ 'retry-after-ms': '-3' }))).toBeUndefined();
    expect(retryAfterMs(new Headers({}))).toBeUndefined();
  });
});
