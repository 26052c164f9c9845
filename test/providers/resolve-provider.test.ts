import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ApplicationFailure } from '@temporalio/common';
import { afterEach, describe, expect, it } from 'vitest';
import {
  DEFAULT_MODEL,
  KEY_ORIGINS_VARIABLE,
  PROVIDER_FACTORIES,
  createProviderResolver,
} from '../../src/providers/resolve-provider.js';
import { startScriptedModelServer } from '../../src/scripted-model/server.js';
import type { ScriptedModelServer } from '../../src/scripted-model/server.js';

let server: ScriptedModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

function failureOf(action: () => unknown): ApplicationFailure {
  try {
    action();
  } catch (error) {
    expect(error).toBeInstanceOf(ApplicationFailure);
    return error as ApplicationFailure;
  }
  throw new Error('expected a failure');
}

describe('createProviderResolver', () => {
  it('defaults to the openai provider and gpt-4.1-mini', () => {
    const resolved = createProviderResolver({ OPENAI_API_KEY: 'sk-test' })({});
    expect(resolved.provider.name).toBe('openai');
    expect(resolved.model).toBe(DEFAULT_MODEL);
    expect(DEFAULT_MODEL).toBe('gpt-4.1-mini');
  });

  it('lets selection fields override the environment', () => {
    const resolve = createProviderResolver({
      OPENAI_API_KEY: 'sk-test',
      DURABLE_AGENT_MODEL: 'env-model',
      DURABLE_AGENT_PROVIDER: 'openai',
    });
    expect(resolve({}).model).toBe('env-model');
    expect(resolve({ model: 'run-model' }).model).toBe('run-model');
    expect(resolve({ provider: 'scripted', baseUrl: 'http://127.0.0.1:9/v1' }).provider.name).toBe('scripted');
  });

  it('treats empty environment values as unset', () => {
    expect(
      createProviderResolver({ OPENAI_API_KEY: 'k', DURABLE_AGENT_MODEL: '', DURABLE_AGENT_PROVIDER: ' ' })({}).model,
    ).toBe(DEFAULT_MODEL);
  });

  it('reuses one provider per endpoint', () => {
    const resolve = createProviderResolver({ OPENAI_API_KEY: 'k' });
    expect(resolve({ model: 'a' }).provider).toBe(resolve({ model: 'b' }).provider);
    expect(resolve({ baseUrl: 'http://127.0.0.1:1/v1' }).provider).not.toBe(resolve({}).provider);
  });

  it('sends requests to the selected base URL without needing a real key', async () => {
    server = await startScriptedModelServer({ script: [{ content: 'hi from scripted' }] });
    const { provider, model } = createProviderResolver({ DURABLE_AGENT_PROVIDER: 'scripted' })({
      baseUrl: server.url,
      model: 'scripted',
    });
    const turn = await provider.complete({ messages: [{ role: 'user', content: 'x' }], tools: [], model });
    expect(turn.content).toBe('hi from scripted');
    expect(server.requests[0]?.model).toBe('scripted');
  });

  it('rejects an unknown provider with a non-retryable failure naming the providers there are', () => {
    const resolve = createProviderResolver({ OPENAI_API_KEY: 'k' });
    const unknown = failureOf(() => resolve({ provider: 'gemini' }));
    expect(unknown.nonRetryable).toBe(true);
    expect(unknown.type).toBe('ModelInvocationError.UnsupportedProvider');
    expect(unknown.message).toBe(
      `Unknown provider "gemini". Providers: ${Object.keys(PROVIDER_FACTORIES).join(', ')}.`,
    );
    expect(failureOf(() => createProviderResolver({ DURABLE_AGENT_PROVIDER: 'gemini' })({})).nonRetryable).toBe(true);
  });

  it('needs a key for OpenAI itself and a base URL for the scripted provider', () => {
    const noKey = failureOf(() => createProviderResolver({})({}));
    expect(noKey.type).toBe('ModelInvocationError.Configuration');
    expect(noKey.nonRetryable).toBe(true);
    expect(noKey.message).toContain('OPENAI_API_KEY');
    expect(createProviderResolver({ OPENAI_BASE_URL: 'http://127.0.0.1:11434/v1' })({}).provider.name).toBe('openai');
    expect(failureOf(() => createProviderResolver({ DURABLE_AGENT_PROVIDER: 'scripted' })({})).message).toContain(
      'base URL',
    );
  });
});

describe("the worker's key goes only to its own endpoints", () => {
  /** An endpoint that records the bearer token of each request and refuses it (400, not retried). */
  async function recordingEndpoint(): Promise<{ url: string; tokens: string[]; close(): Promise<void> }> {
    const tokens: string[] = [];
    const server = createServer((request, response) => {
      tokens.push(String(request.headers.authorization ?? ''));
      response.writeHead(400, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ error: { message: 'recorded', type: 'invalid_request_error' } }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    return {
      url: `http://127.0.0.1:${port}/v1`,
      tokens,
      close: () => new Promise((resolve) => server.close(() => resolve())),
    };
  }
  const ask = (resolved: ReturnType<ReturnType<typeof createProviderResolver>>) =>
    resolved.provider
      .complete({ messages: [{ role: 'user', content: 'hi' }], tools: [], model: resolved.model })
      .catch(() => undefined);

  it('a run naming another URL reaches it without the key; the configured and the named origins get it', async () => {
    const configured = await recordingEndpoint();
    const foreign = await recordingEndpoint();
    const named = await recordingEndpoint();
    try {
      const resolve = createProviderResolver({
        OPENAI_API_KEY: 'sk-worker-secret',
        OPENAI_BASE_URL: configured.url,
        [KEY_ORIGINS_VARIABLE]: new URL(named.url).origin,
      });
      await ask(resolve({}));
      await ask(resolve({ baseUrl: foreign.url }));
      await ask(resolve({ baseUrl: named.url }));
      expect(configured.tokens).toEqual(['Bearer sk-worker-secret']);
      expect(foreign.tokens).toHaveLength(1);
      expect(foreign.tokens[0]).not.toContain('sk-worker-secret');
      expect(named.tokens).toEqual(['Bearer sk-worker-secret']);
    } finally {
      await Promise.all([configured.close(), foreign.close(), named.close()]);
    }
  });
});
