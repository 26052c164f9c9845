import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ApplicationFailure } from '@temporalio/common';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_MODEL, createProviderResolver } from '../../src/providers/resolve-provider.js';
import { KEY_ORIGINS_VARIABLE } from '../../src/providers/setup.js';
import { PROVIDERS, PROVIDER_NAMES } from '../../src/providers/table.js';
import { startScriptedModelServer } from '../../src/scripted-model/server.js';
import type { ScriptedModelServer } from '../../src/scripted-model/server.js';

let server: ScriptedModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function failureOf(resolving: Promise<unknown>): Promise<ApplicationFailure> {
  const error = await resolving.then(
    () => {
      throw new Error('expected a failure');
    },
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(ApplicationFailure);
  return error as ApplicationFailure;
}

describe('createProviderResolver', () => {
  it('defaults to the openai provider and gpt-4.1-mini', async () => {
    const resolved = await createProviderResolver({ OPENAI_API_KEY: 'sk-test' })({});
    expect(resolved.provider.name).toBe('openai');
    expect(resolved.model).toBe(DEFAULT_MODEL);
    expect(DEFAULT_MODEL).toBe('gpt-4.1-mini');
  });

  it('lets selection fields override the environment', async () => {
    const resolve = createProviderResolver({
      OPENAI_API_KEY: 'sk-test',
      DURABLE_AGENT_MODEL: 'env-model',
      DURABLE_AGENT_PROVIDER: 'openai',
    });
    expect((await resolve({})).model).toBe('env-model');
    expect((await resolve({ model: 'run-model' })).model).toBe('run-model');
    expect((await resolve({ provider: 'scripted', baseUrl: 'http://127.0.0.1:9/v1' })).provider.name).toBe('scripted');
  });

  it('treats empty environment values as unset', async () => {
    expect(
      (await createProviderResolver({ OPENAI_API_KEY: 'k', DURABLE_AGENT_MODEL: '', DURABLE_AGENT_PROVIDER: ' ' })({}))
        .model,
    ).toBe(DEFAULT_MODEL);
  });

  it('reuses one provider per endpoint', async () => {
    const resolve = createProviderResolver({ OPENAI_API_KEY: 'k' });
    expect((await resolve({ model: 'a' })).provider).toBe((await resolve({ model: 'b' })).provider);
    expect((await resolve({ baseUrl: 'http://127.0.0.1:1/v1' })).provider).not.toBe((await resolve({})).provider);
  });

  it('sends requests to the selected base URL without needing a real key', async () => {
    server = await startScriptedModelServer({ script: [{ content: 'hi from scripted' }] });
    const { provider, model } = await createProviderResolver({ DURABLE_AGENT_PROVIDER: 'scripted' })({
      baseUrl: server.url,
      model: 'scripted',
    });
    const turn = await provider.complete({ messages: [{ role: 'user', content: 'x' }], tools: [], model });
    expect(turn.content).toBe('hi from scripted');
    expect(server.requests[0]?.model).toBe('scripted');
  });

  it('rejects an unknown provider with a non-retryable failure naming the providers there are', async () => {
    const resolve = createProviderResolver({ OPENAI_API_KEY: 'k' });
    const unknown = await failureOf(resolve({ provider: 'gemini' }));
    expect(unknown.nonRetryable).toBe(true);
    expect(unknown.type).toBe('ModelInvocationError.UnsupportedProvider');
    expect(unknown.message).toBe(`Unknown provider "gemini". Providers: ${PROVIDER_NAMES.join(', ')}.`);
    expect(PROVIDER_NAMES).toEqual(['openai', 'openai-responses', 'anthropic', 'scripted']);
    expect((await failureOf(createProviderResolver({ DURABLE_AGENT_PROVIDER: 'gemini' })({}))).nonRetryable).toBe(true);
  });

  it('needs a key for OpenAI itself and a base URL for the scripted provider', async () => {
    const noKey = await failureOf(createProviderResolver({})({}));
    expect(noKey.type).toBe('ModelInvocationError.Configuration');
    expect(noKey.nonRetryable).toBe(true);
    expect(noKey.message).toContain('OPENAI_API_KEY');
    expect((await createProviderResolver({ OPENAI_BASE_URL: 'http://127.0.0.1:11434/v1' })({})).provider.name).toBe(
      'openai',
    );
    expect((await failureOf(createProviderResolver({ DURABLE_AGENT_PROVIDER: 'scripted' })({}))).message).toContain(
      'base URL',
    );
  });
});

describe('the provider table', () => {
  it.each(PROVIDERS.map((line) => [line.name, line] as const))(
    '%s: its folder gives a factory and the scripted server speaks its API',
    async (name, line) => {
      const { createProvider } = await line.load();
      expect(createProvider).toBeTypeOf('function');
      const dialect = (await line.scripted()).createScriptedDialect();
      server = await startScriptedModelServer({ script: [] });
      // An empty body is a request the route reads (and refuses), not an unknown route.
      const response = await fetch(new URL(dialect.path, server.url), { method: 'POST', body: '{}' });
      expect(response.status, `${name} at ${dialect.path}`).toBe(400);
      expect(line.summary).not.toBe('');
      expect(line.credentials.keyVariable).toMatch(/^[A-Z_]+$/);
    },
  );
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
  const ask = (resolved: Awaited<ReturnType<ReturnType<typeof createProviderResolver>>>) =>
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
      await ask(await resolve({}));
      await ask(await resolve({ baseUrl: foreign.url }));
      await ask(await resolve({ baseUrl: named.url }));
      expect(configured.tokens).toEqual(['Bearer sk-worker-secret']);
      expect(foreign.tokens).toHaveLength(1);
      expect(foreign.tokens[0]).not.toContain('sk-worker-secret');
      expect(named.tokens).toEqual(['Bearer sk-worker-secret']);
    } finally {
      await Promise.all([configured.close(), foreign.close(), named.close()]);
    }
  });
});
