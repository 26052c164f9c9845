// The codec endpoint over real HTTP, as the Web UI calls it from the browser.
import { StorageDriverClaim } from '@temporalio/common';
import type { Payload } from '@temporalio/common';
import { encodeReferencePayload } from '@temporalio/common/lib/internal-non-workflow/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contentKey, refString } from '../../src/core/content-key.js';
import { startCodecServer } from '../../src/store/codec-server.js';
import type { CodecServer } from '../../src/store/codec-server.js';
import { contentStoreDriver } from '../../src/store/temporal-driver.js';
import { createMemoryStore } from '../support/memory-store.js';

const uiOrigin = 'http://127.0.0.1:8233';
const base64 = (text: string | Uint8Array) => Buffer.from(text).toString('base64');
const jsonPayload = (value: unknown) => ({
  metadata: { encoding: base64('json/plain') },
  data: base64(JSON.stringify(value)),
});
const valueOf = (payload: { data: string }) => JSON.parse(Buffer.from(payload.data, 'base64').toString('utf8'));

/** A payload as the UI posts it: proto JSON, bytes in base64. */
function asJson(payload: Payload): Record<string, unknown> {
  return {
    metadata: Object.fromEntries(Object.entries(payload.metadata ?? {}).map(([name, value]) => [name, base64(value)])),
    data: base64(payload.data ?? new Uint8Array()),
    ...(payload.externalPayloads
      ? { externalPayloads: payload.externalPayloads.map(() => ({ sizeBytes: '1234' })) }
      : {}),
  };
}

const store = createMemoryStore('directory /var/lib/agent/store');
let server: CodecServer;

async function post(path: string, body: unknown, headers: Record<string, string> = {}) {
  return await fetch(`${server.url}${path}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'X-Namespace': 'default', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

async function decode(...payloads: unknown[]) {
  const response = await post('/decode', { payloads });
  expect(response.status).toBe(200);
  return ((await response.json()) as { payloads: any[] }).payloads;
}

beforeAll(async () => {
  server = await startCodecServer({ store, port: 0, corsOrigins: [uiOrigin], log: () => {} });
});

afterAll(async () => {
  await server.close();
});

describe('codec endpoint', () => {
  it('listens on 127.0.0.1 and answers /health with the store it reads', async () => {
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const response = await fetch(`${server.url}/health`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: 'ok', store: 'directory /var/lib/agent/store' });
  });

  it('decodes a callModel input: the transcript head, its node and messages, with references replaced', async () => {
    const envelope = { status: 'success', text: 'the file' };
    const envelopeKey = await store.put(JSON.stringify(envelope));
    const user = await store.put(JSON.stringify({ role: 'user', content: 'read a.txt' }));
    const tool = await store.put(
      JSON.stringify({ role: 'tool', tool_call_id: 'call_1', content: refString(envelopeKey) }),
    );
    const head = await store.put(JSON.stringify({ prev: null, messages: [user, tool] }));
    const input = { transcript: { head, messages: 2, tokens: 40 }, toolNames: ['ReadFile'], selection: {}, step: 2 };

    const [decoded] = await decode(jsonPayload(input));

    expect(decoded.metadata).toEqual({ encoding: base64('json/plain') });
    expect(valueOf(decoded)).toEqual({
      ...input,
      transcript: {
        ...input.transcript,
        head: {
          key: head,
          content: {
            prev: null,
            messages: [
              { key: user, content: { role: 'user', content: 'read a.txt' } },
              { key: tool, content: { role: 'tool', tool_call_id: 'call_1', content: envelope } },
            ],
          },
        },
      },
    });
  });

  it('shows a missing key as a note and passes other payloads through untouched', async () => {
    const gone = contentKey('gone');
    const binary = { metadata: { encoding: base64('binary/plain') }, data: base64(new Uint8Array([1, 2, 3])) };
    const broken = { metadata: { encoding: base64('json/plain') }, data: base64('{not json') };
    const empty = { metadata: { encoding: base64('binary/null') } };

    const [missing, ...untouched] = await decode(jsonPayload({ message: { key: gone } }), binary, broken, empty);

    expect(valueOf(missing)).toEqual({
      message: { key: { key: gone, note: `Stored content ${gone} is missing from directory /var/lib/agent/store.` } },
    });
    expect(untouched).toEqual([binary, broken, empty]);
  });

  it('replaces an External Storage reference of our driver by the payload it stands for, expanded', async () => {
    const message = await store.put(JSON.stringify({ role: 'assistant', content: 'done' }));
    const original: Payload = {
      metadata: { encoding: new TextEncoder().encode('json/plain') },
      data: new TextEncoder().encode(JSON.stringify({ answer: 'x'.repeat(100), last: message })),
    };
    const [claim] = await contentStoreDriver(store).store({}, [original]);
    const reference = encodeReferencePayload({ driverName: 'durable-agent-store', claim: claim!, sizeBytes: 1234 });

    const [decoded] = await decode(asJson(reference));

    expect(decoded.metadata).toEqual({ encoding: base64('json/plain') });
    expect(valueOf(decoded)).toEqual({
      answer: 'x'.repeat(100),
      last: { key: message, content: { role: 'assistant', content: 'done' } },
    });
  });

  it('notes a reference whose payload is gone, and leaves another driver’s references alone', async () => {
    const gone = contentKey('a payload collected long ago');
    const ours = encodeReferencePayload({
      driverName: 'durable-agent-store',
      claim: new StorageDriverClaim({ key: gone }),
      sizeBytes: 300_000,
    });
    const theirs = asJson(
      encodeReferencePayload({
        driverName: 'aws.s3driver',
        claim: new StorageDriverClaim({ bucket: 'b', key: 'k' }),
        sizeBytes: 9,
      }),
    );

    const [missing, foreign] = await decode(asJson(ours), theirs);

    expect(valueOf(missing)).toEqual({
      externalStorage: { driver: 'durable-agent-store', key: gone, bytes: 1234 },
      note: `Stored content ${gone} is missing from directory /var/lib/agent/store.`,
    });
    expect(foreign).toEqual(theirs);
  });

  it('encodes as the identity', async () => {
    const payloads = [
      jsonPayload({ key: contentKey('anything') }),
      { metadata: { encoding: base64('binary/plain') }, data: base64('raw') },
    ];
    const response = await post('/encode', { payloads });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ payloads });
  });

  it('serves the endpoints under any path prefix, as the protocol allows', async () => {
    const response = await post('/codec/default/decode', { payloads: [jsonPayload({ ok: true })] });
    expect(response.status).toBe(200);
    expect(valueOf(((await response.json()) as { payloads: any[] }).payloads[0])).toEqual({ ok: true });
  });

  it('answers the UI’s CORS preflight and requests from its origin, and refuses other origins', async () => {
    const preflight = await fetch(`${server.url}/decode`, {
      method: 'OPTIONS',
      headers: {
        Origin: uiOrigin,
        'Access-Control-Request-Method': 'POST',
        'Access-Control-Request-Headers': 'content-type,x-namespace,authorization',
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe(uiOrigin);
    expect(preflight.headers.get('access-control-allow-credentials')).toBe('true');
    expect(preflight.headers.get('access-control-allow-methods')).toContain('POST');
    expect(preflight.headers.get('access-control-allow-headers')?.toLowerCase().split(', ')).toEqual(
      expect.arrayContaining(['x-namespace', 'content-type', 'authorization']),
    );

    const allowed = await post('/decode', { payloads: [] }, { Origin: uiOrigin, Authorization: 'Bearer token' });
    expect(allowed.headers.get('access-control-allow-origin')).toBe(uiOrigin);
    expect(allowed.headers.get('vary')).toBe('Origin');

    const foreign = await fetch(`${server.url}/decode`, {
      method: 'OPTIONS',
      headers: { Origin: 'http://evil.example', 'Access-Control-Request-Method': 'POST' },
    });
    expect(foreign.status).toBe(403);
    expect(foreign.headers.get('access-control-allow-origin')).toBeNull();
    const foreignPost = await post('/decode', { payloads: [] }, { Origin: 'http://evil.example' });
    expect(foreignPost.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('rejects what is not a payloads request', async () => {
    expect((await post('/decode', '{not json')).status).toBe(400);
    expect(await (await post('/decode', { payload: [] })).json()).toEqual({
      error: 'expected {"payloads": [{"metadata": {…}, "data": "…"}, …]}',
    });
    expect((await fetch(`${server.url}/decode`)).status).toBe(405);
    expect((await post('/elsewhere', { payloads: [] })).status).toBe(404);
  });

  it('allows any origin with *', async () => {
    const open = await startCodecServer({ store, port: 0, corsOrigins: ['*'], log: () => {} });
    try {
      const response = await fetch(`${open.url}/health`, { headers: { Origin: 'http://ui.internal:8080' } });
      expect(response.headers.get('access-control-allow-origin')).toBe('http://ui.internal:8080');
    } finally {
      await open.close();
    }
  });
});
