import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { formatBytes } from '../../src/cli/commands/gc.js';
import { parseDuration } from '../../src/cli/duration.js';
import { parseKeyArgument } from '../../src/cli/key-argument.js';
import { contentKey, refString } from '../../src/protocol/content-key.js';
import type { ContentKey } from '../../src/protocol/content-key.js';
import type { ContentStore } from '../../src/store/content-store.js';
import { createDirectoryStore } from '../../src/store/directory-store.js';
import { collectGarbage } from '../../src/store/garbage-collector.js';

const DAY_MS = 86_400_000;
let root: string;
let store: ContentStore;

beforeEach(async () => {
  root = await fs.mkdtemp(path.join(os.tmpdir(), 'durable-agent-gc-'));
  store = createDirectoryStore(root);
});
afterEach(async () => {
  await fs.rm(root, { recursive: true, force: true });
});

async function age(key: ContentKey, days: number): Promise<void> {
  const hex = key.slice('sha256:'.length);
  const when = new Date(Date.now() - days * DAY_MS);
  await fs.utimes(path.join(root, 'objects', hex.slice(0, 2), hex.slice(2)), when, when);
}

async function putOld(content: string | Uint8Array, days = 40): Promise<ContentKey> {
  const key = await store.put(content);
  await age(key, days);
  return key;
}

const cutoff = () => new Date(Date.now() - 30 * DAY_MS);

describe('collectGarbage', () => {
  it('keeps what the roots reach through the keys stored texts mention, deletes old orphans, keeps young ones', async () => {
    const leaf = await putOld('a tool result');
    const middle = await putOld(JSON.stringify({ role: 'tool', content: refString(leaf) }));
    const head = await putOld(JSON.stringify({ previous: middle, messages: [] }));
    const orphan = await putOld('nobody refers to me');
    const orphanChild = await putOld('only the orphan refers to me');
    const orphanParent = await putOld(`see ${orphanChild}`);
    const young = await store.put('written a moment ago, not yet referenced');

    const report = await collectGarbage(store, [head], { cutoff: cutoff(), dryRun: false });
    expect(report.reachable.objects).toBe(3);
    expect(report.recent.objects).toBe(1);
    expect(report.deletedKeys).toEqual([orphan, orphanChild, orphanParent].sort());
    const orphanBytes = ['nobody refers to me', 'only the orphan refers to me', `see ${orphanChild}`].join('').length;
    expect(report.deleted).toEqual({ objects: 3, bytes: orphanBytes });
    for (const key of [leaf, middle, head, young]) expect(await store.has(key)).toBe(true);
    for (const key of [orphan, orphanChild, orphanParent]) expect(await store.has(key)).toBe(false);
    expect(report.stored.objects).toBe(7);
  });

  it('a dry run reports the same and deletes nothing', async () => {
    const kept = await putOld('kept');
    const orphan = await putOld('orphan');
    const report = await collectGarbage(store, [kept], { cutoff: cutoff(), dryRun: true });
    expect(report.deletedKeys).toEqual([orphan]);
    expect(report.deleted).toEqual({ objects: 1, bytes: 'orphan'.length });
    expect(await store.has(orphan)).toBe(true);
  });

  it('reads no references out of binary content, and reports roots that are not stored', async () => {
    const target = await putOld('looks referenced');
    // Not valid UTF-8, though the key's characters are in it.
    const binary = await putOld(Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(target)]));
    const gone = contentKey('collected long ago');
    const report = await collectGarbage(store, [binary, gone], { cutoff: cutoff(), dryRun: false });
    expect(report.deletedKeys).toEqual([target]);
    expect(report.missing).toEqual([gone]);
  });

  it('keeps an old orphan that is re-put while the sweep runs', async () => {
    const orphan = await putOld('about to be re-used');
    const racing: ContentStore = {
      ...store,
      list: () => store.list(),
      delete: async (key, options) => {
        await store.put('about to be re-used'); // a new run stores the same content between listing and delete
        return store.delete(key, options);
      },
    };
    const report = await collectGarbage(racing, [], { cutoff: cutoff(), dryRun: false });
    expect(report.deleted.objects).toBe(0);
    expect(report.reused).toEqual({ objects: 1, bytes: 'about to be re-used'.length });
    expect(await store.has(orphan)).toBe(true);
  });

  it('handles reference cycles and shared children once', async () => {
    const shared = await putOld('shared');
    const left = await putOld(`left ${shared}`);
    const right = await putOld(`right ${shared} ${left}`);
    const report = await collectGarbage(store, [left, right, right], { cutoff: cutoff(), dryRun: false });
    expect(report.reachable.objects).toBe(3);
    expect(report.deleted.objects).toBe(0);
  });
});

describe('gc and output arguments', () => {
  it('parses durations in days, hours, minutes and seconds', () => {
    expect(parseDuration('30d')).toBe(30 * DAY_MS);
    expect(parseDuration('12h')).toBe(12 * 3_600_000);
    expect(parseDuration('90m')).toBe(90 * 60_000);
    expect(parseDuration('45s')).toBe(45_000);
    for (const bad of ['30', 'd', '1.5d', '-1d', '30 days', '2w', '']) expect(parseDuration(bad)).toBeUndefined();
  });

  it('accepts a key as sha256:<hex>, bare hex or a reference string', () => {
    const key = contentKey('x');
    expect(parseKeyArgument(key)).toBe(key);
    expect(parseKeyArgument(key.slice('sha256:'.length))).toBe(key);
    expect(parseKeyArgument(refString(key))).toBe(key);
    expect(parseKeyArgument('sha256:1234')).toBeUndefined();
    expect(parseKeyArgument(key.toUpperCase())).toBeUndefined();
  });

  it('formats byte counts', () => {
    expect(formatBytes(0)).toBe('0 B');
    expect(formatBytes(1536)).toBe('1.5 KiB');
    expect(formatBytes(5 * 1024 * 1024)).toBe('5.0 MiB');
  });
});
