// The model of a run given --base-url and no model: asked of the endpoint, over real HTTP.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { onlyModelOf } from '../../src/cli/endpoint-models.js';
import { UsageError } from '../../src/cli/exit-codes.js';
import { startScriptedModelServer } from '../../src/scripted-model/server.js';
import type { ScriptTurn, ScriptedModelServer } from '../../src/scripted-model/server.js';

let server: ScriptedModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function endpoint(script: ScriptTurn[]): Promise<string> {
  server = await startScriptedModelServer({ script });
  return server.url;
}

/** The UsageError `onlyModelOf` throws, for its message. */
async function usageError(baseUrl: string, options: Parameters<typeof onlyModelOf>[1] = {}): Promise<UsageError> {
  const error = await onlyModelOf(baseUrl, { env: {}, ...options }).then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(UsageError);
  return error as UsageError;
}

describe('onlyModelOf', () => {
  it('is the one model the endpoint lists', async () => {
    expect(await onlyModelOf(await endpoint([{ content: 'a' }]), { env: {} })).toBe('scripted');
    await server!.close();
    expect(await onlyModelOf(await endpoint([{ model: 'qwen2.5-coder', content: 'a' }]), { env: {} })).toBe(
      'qwen2.5-coder',
    );
    expect(server!.requests).toHaveLength(0);
  });

  it('is a usage error listing the models when the endpoint serves several', async () => {
    const url = await endpoint([
      { model: 'llama-3.1-8b', content: 'a' },
      { model: 'qwen2.5-coder', content: 'b' },
    ]);
    expect((await usageError(url)).message).toBe(
      `--base-url needs --model (or DURABLE_AGENT_MODEL): ${url} serves 2 models: llama-3.1-8b, qwen2.5-coder`,
    );
  });

  it('is a usage error saying why when the endpoint cannot be asked', async () => {
    const url = await endpoint([]);
    await server!.close();
    server = undefined;
    expect((await usageError(url)).message).toBe(
      `--base-url needs --model (or DURABLE_AGENT_MODEL): could not list the models of ${url} (connection refused)`,
    );
    const elsewhere = (await endpoint([])).replace(/\/v1$/, '/v2');
    expect((await usageError(elsewhere)).message).toBe(
      `--base-url needs --model (or DURABLE_AGENT_MODEL): could not list the models of ${elsewhere} ` +
        `(HTTP 404: Scripted model: no route for GET /v2/models)`,
    );
    // An endpoint that takes the connection and never answers.
    const silent = createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(silent.address() as AddressInfo).port}/v1`;
      expect((await usageError(url, { timeoutMs: 200 })).message).toBe(
        `--base-url needs --model (or DURABLE_AGENT_MODEL): could not list the models of ${url} (no answer within 0.2 s)`,
      );
    } finally {
      silent.closeAllConnections();
      await new Promise((resolve) => silent.close(resolve));
    }
    expect((await usageError('localhost:8000/v1')).message).toBe(
      '--base-url must be an http(s) URL, got "localhost:8000/v1"',
    );
  });

  it('sends OPENAI_API_KEY only where the worker would send it', async () => {
    const authorizations: (string | undefined)[] = [];
    const listing = createServer((request, response) => {
      authorizations.push(request.headers.authorization);
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ object: 'list', data: [{ id: 'local', object: 'model' }] }));
    });
    await new Promise<void>((resolve) => listing.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(listing.address() as AddressInfo).port}/v1`;
      expect(await onlyModelOf(url, { env: { OPENAI_API_KEY: 'sk-secret' } })).toBe('local');
      expect(await onlyModelOf(url, { env: { OPENAI_API_KEY: 'sk-secret', OPENAI_BASE_URL: url } })).toBe('local');
      expect(await onlyModelOf(url, { env: { OPENAI_API_KEY: 'sk-secret', DURABLE_AGENT_KEY_ORIGINS: url } })).toBe(
        'local',
      );
      expect(authorizations).toEqual(['Bearer unused', 'Bearer sk-secret', 'Bearer sk-secret']);
    } finally {
      listing.closeAllConnections();
      await new Promise((resolve) => listing.close(resolve));
    }
  });
});
