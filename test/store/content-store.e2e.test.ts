// One contract for every content store, run against the directory store and against the S3 store on a real
// S3-compatible server (s3proxy). Without a provisioned server the S3 half is skipped with the reason, except in CI,
// where it fails.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestContext } from 'vitest';
import { contentKey } from '../../src/protocol/content-key.js';
import type { ContentKey } from '../../src/protocol/content-key.js';
import type { ContentStore } from '../../src/store/content-store.js';
import {
  CorruptContentError,
  MissingContentError,
  StoreOutageError,
  StoreUnavailableError,
} from '../../src/store/content-store.js';
import { createDirectoryStore } from '../../src/store/directory-store.js';
import { createS3Store } from '../../src/store/s3-store.js';
import { storeFromEnv } from '../../src/store/store-from-env.js';
import type { TestS3Server } from '../support/s3-server.js';
import { S3ServerUnavailableError, startS3Server } from '../support/s3-server.js';
import { findFreePorts } from '../support/ports.js';

/** A store under test plus the backdoor a test needs: the file behind an object, to age or damage it. */
interface StoreFixture {
  store: ContentStore;
  objectFile: (key: ContentKey) => string;
}

const DAY_MS = 24 * 3600_000;

async function all<T>(items: AsyncIterable<T>): Promise<T[]> {
  const collected: T[] = [];
  for await (const item of items) collected.push(item);
  return collected;
}

async function setAge(file: string, ageMs: number): Promise<void> {
  const when = new Date(Date.now() - ageMs);
  await fs.utimes(file, when, when);
}

function contract(name: string, open: (context: TestContext) => Promise<StoreFixture>): void {
  describe(`${name} store contract`, () => {
    it('put returns the key core computes, and get returns the same bytes', async (context) => {
      const { store } = await open(context);
      const text = `hello ${randomBytes(8).toString('hex')}`;
      const key = await store.put(text);
      expect(key).toBe(contentKey(text));
      expect(Buffer.from(await store.get(key)).toString('utf8')).toBe(text);
      // The same content as bytes has the same key.
      expect(await store.put(new TextEncoder().encode(text))).toBe(key);
    });

    it('keeps non-ASCII text byte for byte (multi-byte UTF-8, combining marks, astral characters)', async (context) => {
      const { store } = await open(context);
      const text = `Grüße — 日本語テキスト — e\u0301 — 🧪🚀 — ${randomBytes(4).toString('hex')}`;
      const key = await store.put(text);
      expect(key).toBe(contentKey(text));
      expect(new TextDecoder('utf-8', { fatal: true }).decode(await store.get(key))).toBe(text);
    });

    it('stores empty content', async (context) => {
      const { store } = await open(context);
      const key = await store.put('');
      expect(key).toBe(contentKey(''));
      expect((await store.get(key)).byteLength).toBe(0);
    });

    it('has says whether a key is stored', async (context) => {
      const { store } = await open(context);
      const key = await store.put(`present ${randomBytes(8).toString('hex')}`);
      expect(await store.has(key)).toBe(true);
      expect(await store.has(contentKey(`absent ${randomBytes(8).toString('hex')}`))).toBe(false);
    });

    it('stores content once however often it is put, and lists it with its size and time', async (context) => {
      const { store } = await open(context);
      const text = `dedupe ${randomBytes(8).toString('hex')} ünïcödé`;
      const before = Date.now() - 2000; // S3 times have whole seconds
      const keys = [await store.put(text), await store.put(text), await store.put(Buffer.from(text))];
      expect(new Set(keys).size).toBe(1);
      const listed = (await all(store.list())).filter((object) => object.key === keys[0]);
      expect(listed).toHaveLength(1);
      expect(listed[0]!.bytes).toBe(Buffer.byteLength(text));
      expect(listed[0]!.writtenAt.getTime()).toBeGreaterThanOrEqual(before);
      expect(listed[0]!.writtenAt.getTime()).toBeLessThanOrEqual(Date.now() + 2000);
    });

    it('lists every stored object', async (context) => {
      const { store } = await open(context);
      const keys = await Promise.all(
        Array.from({ length: 5 }, (_, index) => store.put(`listed ${index} ${randomBytes(8).toString('hex')}`)),
      );
      const listed = new Set((await all(store.list())).map((object) => object.key));
      for (const key of keys) expect(listed.has(key)).toBe(true);
    });

    it('delete removes an object and says whether there was one', async (context) => {
      const { store } = await open(context);
      const key = await store.put(`doomed ${randomBytes(8).toString('hex')}`);
      expect(await store.delete(key)).toBe(true);
      expect(await store.has(key)).toBe(false);
      expect(await store.delete(key)).toBe(false);
      expect((await all(store.list())).some((object) => object.key === key)).toBe(false);
      // Deleted content can be stored again.
      await store.put(`doomed ${key}`);
    });

    it('get of a missing key throws MissingContentError naming the key and the store', async (context) => {
      const { store } = await open(context);
      const key = contentKey(`never stored ${randomBytes(8).toString('hex')}`);
      const error = await store.get(key).then(
        () => undefined,
        (thrown: unknown) => thrown,
      );
      expect(error).toBeInstanceOf(MissingContentError);
      expect((error as MissingContentError).key).toBe(key);
      expect((error as Error).message).toContain(key);
      expect((error as Error).message).toContain(store.description);
    });

    it('rejects malformed keys before touching storage', async (context) => {
      const { store } = await open(context);
      for (const bad of ['sha256:../../etc/passwd', 'sha256:ABC', 'md5:00', `sha256:${'0'.repeat(63)}`])
        await expect(store.get(bad as ContentKey)).rejects.toThrow(/Not a content key/);
    });

    it('round-trips a 5 MB object', async (context) => {
      const { store } = await open(context);
      const bytes = randomBytes(5 * 1024 * 1024);
      const key = await store.put(bytes);
      expect(key).toBe(contentKey(bytes));
      expect(Buffer.compare(Buffer.from(await store.get(key)), bytes)).toBe(0);
      expect((await all(store.list())).find((object) => object.key === key)?.bytes).toBe(bytes.byteLength);
    });

    it('concurrent puts of the same content all succeed and store it once', async (context) => {
      const { store } = await open(context);
      const bytes = randomBytes(256 * 1024);
      const keys = await Promise.all(Array.from({ length: 12 }, () => store.put(bytes)));
      expect(new Set(keys)).toEqual(new Set([contentKey(bytes)]));
      expect(Buffer.compare(Buffer.from(await store.get(keys[0]!)), bytes)).toBe(0);
      expect((await all(store.list())).filter((object) => object.key === keys[0])).toHaveLength(1);
    });

    it('a re-put of old content refreshes its writtenAt, so a collector sees it was re-used', async (context) => {
      const { store, objectFile } = await open(context);
      const text = `re-used ${randomBytes(8).toString('hex')}`;
      const key = await store.put(text);
      await setAge(objectFile(key), 40 * DAY_MS);
      const aged = (await all(store.list())).find((object) => object.key === key)!;
      expect(Date.now() - aged.writtenAt.getTime()).toBeGreaterThan(39 * DAY_MS);
      await store.put(text);
      const refreshed = (await all(store.list())).find((object) => object.key === key)!;
      expect(Date.now() - refreshed.writtenAt.getTime()).toBeLessThan(60_000);
      expect(Buffer.from(await store.get(key)).toString('utf8')).toBe(text);
    });

    it('delete with ifWrittenBefore keeps an object re-put since, and removes one that was not', async (context) => {
      const { store, objectFile } = await open(context);
      const cutoff = new Date(Date.now() - 30 * DAY_MS);
      const reused = await store.put(`kept ${randomBytes(8).toString('hex')}`);
      const orphan = await store.put(`orphan ${randomBytes(8).toString('hex')}`);
      await setAge(objectFile(orphan), 40 * DAY_MS);
      expect(await store.delete(reused, { ifWrittenBefore: cutoff })).toBe(false);
      expect(await store.has(reused)).toBe(true);
      expect(await store.delete(orphan, { ifWrittenBefore: cutoff })).toBe(true);
      expect(await store.has(orphan)).toBe(false);
    });

    it('an object whose bytes do not hash to its key is reported corrupt and dropped; a put writes it afresh', async (context) => {
      const { store, objectFile } = await open(context);
      const text = `intact ${randomBytes(8).toString('hex')}`;
      const key = await store.put(text);
      const file = objectFile(key);
      await fs.chmod(file, 0o644);
      await fs.writeFile(file, `tampered ${text.slice(7)}`);
      const error = await store.get(key).then(
        () => undefined,
        (thrown: unknown) => thrown,
      );
      expect(error).toBeInstanceOf(CorruptContentError);
      expect(error).toBeInstanceOf(MissingContentError);
      expect((error as Error).message).toContain(key);
      expect(await store.has(key)).toBe(false);
      expect(await store.put(text)).toBe(key);
      expect(Buffer.from(await store.get(key)).toString('utf8')).toBe(text);
    });
  });
}

// The directory store: a fresh directory per test file.
let directoryRoot: string;
beforeAll(async () => {
  directoryRoot = await fs.mkdtemp(path.join(os.tmpdir(), 'durable-agent-store-test-'));
});
afterAll(async () => {
  if (directoryRoot) await fs.rm(directoryRoot, { recursive: true, force: true });
});

function objectFileIn(root: string): (key: ContentKey) => string {
  return (key) => {
    const hex = key.slice('sha256:'.length);
    return path.join(root, 'objects', hex.slice(0, 2), hex.slice(2));
  };
}

contract('directory', async () => ({
  store: createDirectoryStore(directoryRoot),
  objectFile: objectFileIn(directoryRoot),
}));

describe('directory store layout', () => {
  it('writes objects/<2 hex>/<62 hex>, read-only, and leaves no temp files behind', async () => {
    const root = path.join(directoryRoot, 'layout');
    const store = createDirectoryStore(root);
    const keys = await Promise.all(Array.from({ length: 8 }, () => store.put('same bytes')));
    const hex = keys[0]!.slice('sha256:'.length);
    const prefixDir = path.join(root, 'objects', hex.slice(0, 2));
    expect(await fs.readdir(prefixDir)).toEqual([hex.slice(2)]);
    expect((await fs.stat(path.join(prefixDir, hex.slice(2)))).mode & 0o777).toBe(0o444);
    expect(store.description).toBe(`directory ${root}`);
  });

  it('lists nothing for a directory that does not exist yet', async () => {
    expect(await all(createDirectoryStore(path.join(directoryRoot, 'never-written')).list())).toEqual([]);
  });
});

// The S3 store against a real S3-compatible server, when one is provisioned.
let s3: TestS3Server | undefined;
let s3Problem: unknown;
// A server that is not provisioned skips the S3 tests on a developer's machine; in CI, and for any other failure to
// start, every S3 test fails with the reason, so the count shows it.
const mayskipS3 = (problem: unknown): problem is S3ServerUnavailableError =>
  problem instanceof S3ServerUnavailableError && process.env.CI !== 'true';
beforeAll(async () => {
  try {
    s3 = await startS3Server();
  } catch (error) {
    s3Problem = error;
    if (mayskipS3(error)) console.warn(`S3 store tests skipped: ${error.message}`);
  }
}, 120_000);
afterAll(async () => {
  await s3?.stop();
});

/** The running server; otherwise the test is skipped with the reason, or fails with it. */
function s3Server(context: TestContext): TestS3Server {
  if (s3) return s3;
  if (mayskipS3(s3Problem)) context.skip(`S3 server unavailable: ${s3Problem.message}`);
  throw s3Problem instanceof Error ? s3Problem : new Error(`S3 server did not start: ${String(s3Problem)}`);
}

function s3Store(server: TestS3Server, prefix: string, options: { listPageSize?: number } = {}): StoreFixture {
  const store = createS3Store({
    bucket: server.bucket,
    prefix,
    endpoint: server.endpoint,
    region: server.region,
    forcePathStyle: true,
    credentials: { accessKeyId: server.accessKeyId, secretAccessKey: server.secretAccessKey },
    ...options,
  });
  // s3proxy's filesystem backend keeps an object as a file whose mtime is its LastModified.
  return {
    store,
    objectFile: (key) => path.join(server.dataDir, server.bucket, `${prefix}objects/${key.slice('sha256:'.length)}`),
  };
}

contract('s3', async (context) => s3Store(s3Server(context), 'contract/'));

describe('s3 store', () => {
  it('describes itself as s3://bucket/prefix (endpoint) and keeps objects under <prefix>objects/<hex>', async (context) => {
    const server = s3Server(context);
    const { store, objectFile } = s3Store(server, 'layout/');
    expect(store.description).toBe(`s3://${server.bucket}/layout/ (${server.endpoint})`);
    const key = await store.put('where is it');
    expect(await fs.readFile(objectFile(key), 'utf8')).toBe('where is it');
  });

  it('lists across pages', async (context) => {
    const { store } = s3Store(s3Server(context), 'paged/', { listPageSize: 2 });
    const keys = await Promise.all(Array.from({ length: 7 }, (_, index) => store.put(`page item ${index}`)));
    expect(new Set((await all(store.list())).map((object) => object.key))).toEqual(new Set(keys));
  });

  it('a missing bucket is a StoreUnavailableError that names the bucket', async (context) => {
    const server = s3Server(context);
    const store = createS3Store({
      bucket: 'no-such-bucket-here',
      endpoint: server.endpoint,
      forcePathStyle: true,
      credentials: { accessKeyId: server.accessKeyId, secretAccessKey: server.secretAccessKey },
    });
    for (const attempt of [
      () => store.put('x'),
      () => store.has(contentKey('x')),
      () => store.get(contentKey('x')),
      () => all(store.list()),
    ]) {
      const error = await attempt().then(
        () => undefined,
        (thrown: unknown) => thrown,
      );
      expect(error).toBeInstanceOf(StoreUnavailableError);
      expect((error as Error).message).toMatch(/S3 bucket "no-such-bucket-here" does not exist/);
    }
  });

  it('a server that does not answer is a retryable StoreOutageError naming its endpoint', async () => {
    // A port just freed: nothing listens there, so every request is refused.
    const [port] = (await findFreePorts(1)) as [number];
    const endpoint = `http://127.0.0.1:${port}`;
    const store = createS3Store({
      bucket: 'any-bucket',
      endpoint,
      forcePathStyle: true,
      credentials: { accessKeyId: 'key', secretAccessKey: 'secret' },
    });
    for (const attempt of [() => store.put('x'), () => store.get(contentKey('x'))]) {
      const error = await attempt().then(
        () => undefined,
        (thrown: unknown) => thrown,
      );
      expect(error).toBeInstanceOf(StoreOutageError);
      expect((error as Error).message).toMatch(
        new RegExp(`^content store unreachable at ${endpoint}: \\w+ on s3://any-bucket/ .*ECONNREFUSED`),
      );
    }
  });

  it('wrong credentials are a StoreUnavailableError that says which variables to check', async (context) => {
    const server = s3Server(context);
    for (const credentials of [
      { accessKeyId: server.accessKeyId, secretAccessKey: 'wrong-secret' },
      { accessKeyId: 'unknown-key', secretAccessKey: 'wrong-secret' },
    ]) {
      const store = createS3Store({
        bucket: server.bucket,
        endpoint: server.endpoint,
        forcePathStyle: true,
        credentials,
      });
      for (const attempt of [() => store.put('x'), () => store.get(contentKey('x'))]) {
        const error = await attempt().then(
          () => undefined,
          (thrown: unknown) => thrown,
        );
        expect(error).toBeInstanceOf(StoreUnavailableError);
        expect((error as Error).message).toContain('AWS_ACCESS_KEY_ID');
        expect((error as Error).message).toContain(`s3://${server.bucket}/`);
      }
    }
  });

  it('storeFromEnv reaches the bucket from the variables the worker and the CLI read', async (context) => {
    const server = s3Server(context);
    const store = storeFromEnv(server.storeEnv('from-env'), { stateDir: '/nonexistent' });
    expect(store.description).toBe(`s3://${server.bucket}/from-env/ (${server.endpoint})`);
    const key = await store.put('through the environment');
    expect(Buffer.from(await store.get(key)).toString('utf8')).toBe('through the environment');
  });
});
