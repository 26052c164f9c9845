// The codec endpoint over real HTTP, as the Web UI calls it from the browser.
import { StorageDriverClaim } from '@temporalio/common';
import type { Payload } from '@temporalio/common';
import { encodeReferencePayload } from '@temporalio/common/lib/internal-non-workflow/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contentKey, refString } from '../../src/protocol/content-key.js';
import type { ContentKey } from '../../src/protocol/content-key.js';
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

  it('refuses * as an origin: any page in the browser could read the store', async () => {
    await expect(startCodecServer({ store, port: 0, corsOrigins: ['*'], log: () => {} })).rejects.toThrow(
      'named Web UI origins only',
    );
  });
});

describe('codec endpoint access', () => {
  const secret = 'AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY';
  let secretKey: ContentKey;
  const port = () => new URL(server.url).port;

  beforeAll(async () => {
    secretKey = await store.put(secret);
  });

  /** One raw HTTP/1.1 exchange: fetch cannot send another Host than the URL's, which is what a rebound page does. */
  async function raw(request: string): Promise<{ status: number; text: string }> {
    const net = await import('node:net');
    const socket = net.connect(Number(port()), '127.0.0.1');
    socket.write(request);
    const chunks: Buffer[] = [];
    for await (const chunk of socket) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    return { status: Number(text.split(' ')[1]), text };
  }

  const decodeBody = () => JSON.stringify({ payloads: [jsonPayload({ file: refString(secretKey) })] });

  it('decodes for the operator on its own address, by 127.0.0.1 or localhost', async () => {
    for (const host of [`127.0.0.1:${port()}`, `localhost:${port()}`]) {
      const answer = await raw(
        `POST /decode HTTP/1.1\r\nHost: ${host}\r\nContent-Type: application/json\r\nOrigin: ${uiOrigin}\r\n` +
          `Content-Length: ${decodeBody().length}\r\nConnection: close\r\n\r\n${decodeBody()}`,
      );
      expect(answer.status).toBe(200);
      expect(answer.text).toContain(base64(JSON.stringify({ file: secret })).slice(0, 16));
    }
  });

  it('refuses a rebound name, a foreign origin, a null origin and a simple cross-site POST, with 0 bytes of the store', async () => {
    const attempts = [
      // DNS rebinding: the page's own name, now resolving to 127.0.0.1.
      `Host: rebind.attacker.example:${port()}\r\nOrigin: http://rebind.attacker.example:${port()}\r\nContent-Type: application/json`,
      `Host: rebind.attacker.example:${port()}\r\nContent-Type: application/json`,
      `Host: 127.0.0.1\r\nContent-Type: application/json`,
      `Content-Type: application/json`,
      // A page in the operator's browser calling the right address.
      `Host: 127.0.0.1:${port()}\r\nOrigin: https://attacker.example\r\nContent-Type: application/json`,
      `Host: 127.0.0.1:${port()}\r\nOrigin: null\r\nContent-Type: application/json`,
      `Host: 127.0.0.1:${port()}\r\nOrigin: ${uiOrigin}.attacker.example\r\nContent-Type: application/json`,
      // A form or no-cors fetch: no preflight, so no JSON content type.
      `Host: 127.0.0.1:${port()}\r\nContent-Type: text/plain`,
    ];
    for (const headers of attempts) {
      const answer = await raw(
        `POST /decode HTTP/1.1\r\n${headers}\r\nContent-Length: ${decodeBody().length}\r\nConnection: close\r\n\r\n${decodeBody()}`,
      );
      expect(answer.status, headers).toBeGreaterThanOrEqual(400);
      expect(answer.text).not.toContain('wJalrXUtnFEMI');
      expect(answer.text).not.toContain(base64(JSON.stringify({ file: secret })).slice(0, 16));
      expect(answer.text).not.toContain('access-control-allow-origin');
    }
  });

  it('refuses another local user, whatever headers they send', async () => {
    const { execa } = await import('execa');
    const probe = `const r = await fetch(${JSON.stringify(`${server.url}/decode`)}, { method: 'POST',
      headers: { 'Content-Type': 'application/json', Origin: ${JSON.stringify(uiOrigin)} }, body: ${JSON.stringify(decodeBody())} });
      const health = await fetch(${JSON.stringify(`${server.url}/health`)});
      console.log(JSON.stringify({ status: r.status, text: await r.text(), health: health.status, store: await health.text() }));`;
    const result = await execa(
      'setpriv',
      ['--reuid', '65534', '--regid', '65534', '--clear-groups', process.execPath, '--input-type=module', '-e', probe],
      { reject: false, cwd: '/' },
    );
    expect(result.exitCode, result.stderr).toBe(0);
    const answer = JSON.parse(result.stdout) as { status: number; text: string; health: number; store: string };
    expect(answer.status).toBe(403);
    expect(answer.text).toContain('(uid 65534) is not the operator');
    expect(answer.text).not.toContain('wJalrXUtnFEMI');
    expect(answer.health).toBe(403);
    expect(answer.store).not.toContain('/var/lib/agent/store');
  });

  it('serves a caller that is not the operator only with its token, set as a cookie by the sign-in link', async () => {
    const token = 'codec-token-for-this-test';
    const guarded = await startCodecServer({
      store,
      port: 0,
      corsOrigins: [uiOrigin],
      token,
      operatorUids: [],
      log: () => {},
    });
    try {
      const call = (headers: Record<string, string>) =>
        fetch(`${guarded.url}/decode`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', ...headers },
          body: decodeBody(),
        });
      expect((await call({})).status).toBe(403);
      expect((await call({ Authorization: 'Bearer wrong' })).status).toBe(401);
      expect((await call({ Cookie: 'durable-agent-codec=wrong' })).status).toBe(401);
      expect((await fetch(`${guarded.url}/login?token=wrong`)).status).toBe(401);
      const login = await fetch(`${guarded.url}/login?token=${token}`);
      expect(login.status).toBe(200);
      const cookie = login.headers.get('set-cookie')!;
      expect(cookie).toMatch(/^durable-agent-codec=codec-token-for-this-test; Path=\/; HttpOnly; SameSite=Strict/);
      const signedIn = await call({ Cookie: cookie.split(';')[0]!, Origin: uiOrigin });
      expect(signedIn.status).toBe(200);
      expect(JSON.stringify(await signedIn.json())).toContain(base64(JSON.stringify({ file: secret })).slice(0, 16));
      expect((await call({ Authorization: `Bearer ${token}` })).status).toBe(200);
    } finally {
      await guarded.close();
    }
  });
});
