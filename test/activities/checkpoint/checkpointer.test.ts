// The checkpointer: a workspace recorded as trees of content keys, its cost kept to what changed by the stat cache,
// with git's ignore rules, links never followed, and every odd file recorded rather than failing the checkpoint.
import fs from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { STORED_TRUST_MS, createCheckpointer } from '../../../src/activities/checkpoint/checkpointer.js';
import { compareCheckpoints } from '../../../src/activities/checkpoint/compare.js';
import { DEFAULT_CHECKPOINT_IGNORE } from '../../../src/activities/checkpoint/ignore-rules.js';
import { canonicalJson } from '../../../src/protocol/canonical-json.js';
import type { CheckpointTree, TreeEntry } from '../../../src/protocol/checkpoint.js';
import { parseTree, serializeTree } from '../../../src/protocol/checkpoint.js';
import type { ContentKey } from '../../../src/protocol/content-key.js';
import { contentKey } from '../../../src/protocol/content-key.js';
import type { ContentStore } from '../../../src/store/content-store.js';
import { useScratchWorkspace } from './scratch-workspace.js';

const HOUR_AGO = new Date(Date.now() - 3_600_000);
const scratch = useScratchWorkspace('checkpoint');
let temp: string;
let workspace: string;
let store: ContentStore;

beforeEach(() => {
  ({ temp, workspace, store } = scratch);
});
afterEach(async () => {
  await fs.chmod(path.join(workspace, 'locked.txt'), 0o644).catch(() => undefined);
});

/** Writes a workspace file, dated an hour back unless `recent`, so the stat cache may trust it. */
async function write(rel: string, content: string | Uint8Array, options: { recent?: boolean; root?: string } = {}) {
  const file = path.join(options.root ?? workspace, rel);
  await fs.mkdir(path.dirname(file), { recursive: true });
  await fs.writeFile(file, content);
  if (!options.recent) await fs.utimes(file, HOUR_AGO, HOUR_AGO);
}

/** Every recorded entry by workspace-relative path (directories included). */
async function recorded(key: ContentKey): Promise<Map<string, TreeEntry>> {
  const changes = await compareCheckpoints(store, null, key);
  return new Map(changes.map((change) => [change.path, change.after!]));
}

async function blobText(entry: TreeEntry | undefined): Promise<string> {
  return Buffer.from(await store.get(entry!.key!)).toString('utf8');
}

/** The store with its puts counted. */
function countingPuts(inner: ContentStore): { store: ContentStore; puts: () => number } {
  let puts = 0;
  return {
    store: {
      ...inner,
      put: async (content) => {
        puts++;
        return inner.put(content);
      },
    },
    puts: () => puts,
  };
}

async function storedObjects(): Promise<number> {
  let objects = 0;
  for await (const _object of store.list()) objects++;
  return objects;
}

describe('createCheckpointer', () => {
  it('gives equal workspaces equal keys, and a different file a different key', async () => {
    const other = path.join(temp, 'other');
    for (const root of [workspace, other]) {
      await write('README.md', '# project\n', { root });
      await write('src/index.ts', 'export {};\n', { root });
      await fs.mkdir(path.join(root, 'empty'));
    }
    const first = await createCheckpointer(store).checkpoint(workspace);
    const second = await createCheckpointer(store).checkpoint(other);
    expect(second.key).toBe(first.key);
    expect(first).toMatchObject({ files: 2, skipped: 0 });

    await write('src/index.ts', 'export const x = 1;\n', { root: other });
    expect((await createCheckpointer(store).checkpoint(other)).key).not.toBe(first.key);
  });

  it('records files with their mode, size and content key, and an empty directory as an empty tree', async () => {
    await write('run.sh', '#!/bin/sh\necho hi\n');
    await fs.chmod(path.join(workspace, 'run.sh'), 0o755);
    await fs.mkdir(path.join(workspace, 'empty'));
    const { key } = await createCheckpointer(store).checkpoint(workspace);
    const entries = await recorded(key);
    expect(entries.get('run.sh')).toEqual({
      name: 'run.sh',
      type: 'file',
      mode: 0o755,
      size: 18,
      key: contentKey('#!/bin/sh\necho hi\n'),
    });
    const emptyTree = contentKey(serializeTree({ checkpoint: 1, entries: [] }));
    expect(entries.get('empty')).toEqual({ name: 'empty', type: 'dir', key: emptyTree });
    expect(await store.has(emptyTree)).toBe(true);
  });

  it('reads only the files whose stat changed, and stores only the trees on their way', async () => {
    for (let index = 0; index < 200; index++) await write(`dir${index % 10}/file${index}.txt`, `content ${index}\n`);
    const counted = countingPuts(store);
    const checkpointer = createCheckpointer(counted.store);
    const first = await checkpointer.checkpoint(workspace);
    expect(first).toMatchObject({ files: 200, hashed: 200 });

    const putsBefore = counted.puts();
    const again = await checkpointer.checkpoint(workspace);
    expect(again).toEqual({ key: first.key, files: 200, hashed: 0, skipped: 0, directoriesRead: 11 });
    expect(counted.puts()).toBe(putsBefore);

    await write('dir3/file13.txt', 'changed\n', { recent: true });
    const changed = await checkpointer.checkpoint(workspace);
    expect(changed.hashed).toBe(1);
    expect(changed.key).not.toBe(first.key);
    // The new blob, dir3's tree and the root's.
    expect(counted.puts()).toBe(putsBefore + 3);
    expect(await blobText((await recorded(changed.key)).get('dir3/file13.txt'))).toBe('changed\n');
  });

  it.each([false, true])(
    'stores unchanged content again once it was last stored an hour ago, so gc never takes what it names (watch: %s)',
    async (watch) => {
      for (let index = 0; index < 20; index++) await write(`dir${index % 2}/file${index}.txt`, `content ${index}\n`);
      const counted = countingPuts(store);
      const checkpointer = createCheckpointer(counted.store, { watch });
      const first = await checkpointer.checkpoint(workspace);
      const putsBefore = counted.puts();
      vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + STORED_TRUST_MS + 1 });
      try {
        const later = await checkpointer.checkpoint(workspace);
        // Every file read and stored again, and every tree: each put refreshes its object's age.
        expect(later).toEqual({ key: first.key, files: 20, hashed: 20, skipped: 0, directoriesRead: 3 });
        expect(counted.puts()).toBe(putsBefore + 20 + 3);
        // Then trusted again for the next hour.
        const again = await checkpointer.checkpoint(workspace);
        expect(again.hashed).toBe(0);
      } finally {
        vi.useRealTimers();
      }
    },
  );

  it('reads a recently modified file again even when its stat did not change (racy clean)', async () => {
    await write('notes.txt', 'version 1\n', { recent: true });
    const checkpointer = createCheckpointer(store);
    expect((await checkpointer.checkpoint(workspace)).hashed).toBe(1);
    // Same stat, but modified within the last two seconds: not trusted.
    expect((await checkpointer.checkpoint(workspace)).hashed).toBe(1);

    // Rewritten within the same second with the same size, its mtime put back.
    const { mtime } = await fs.stat(path.join(workspace, 'notes.txt'));
    await fs.writeFile(path.join(workspace, 'notes.txt'), 'version 2\n');
    await fs.utimes(path.join(workspace, 'notes.txt'), mtime, mtime);
    const rewritten = await checkpointer.checkpoint(workspace);
    expect(await blobText((await recorded(rewritten.key)).get('notes.txt'))).toBe('version 2\n');

    // Once old enough it is trusted.
    await fs.utimes(path.join(workspace, 'notes.txt'), HOUR_AGO, HOUR_AGO);
    expect((await checkpointer.checkpoint(workspace)).hashed).toBe(1);
    expect((await checkpointer.checkpoint(workspace)).hashed).toBe(0);
  });

  it('sees an old file rewritten with the same size and its mtime put back, by its ctime', async () => {
    await write('settings.json', '{"a":1}\n');
    const checkpointer = createCheckpointer(store);
    await checkpointer.checkpoint(workspace);
    expect((await checkpointer.checkpoint(workspace)).hashed).toBe(0);
    await write('settings.json', '{"a":2}\n');
    const rewritten = await checkpointer.checkpoint(workspace);
    expect(rewritten.hashed).toBe(1);
    expect(await blobText((await recorded(rewritten.key)).get('settings.json'))).toBe('{"a":2}\n');
  });

  it('leaves out the defaults, the run’s patterns and what root and nested .gitignore files list', async () => {
    expect(DEFAULT_CHECKPOINT_IGNORE).toEqual(['.git/', 'node_modules/', '.agent/']);
    await write('.git/config', '[core]\n');
    await write('node_modules/pkg/index.js', 'module.exports = 1;\n');
    await write('packages/a/node_modules/dep/index.js', 'module.exports = 2;\n');
    await write('.agent/spill/output.txt', 'spilled\n');
    await write('.gitignore', '*.log\n/build\nout/\ndist/\n');
    await write('app.log', 'log\n');
    await write('build/bundle.js', 'bundle\n');
    await write('src/build/kept.js', 'kept: /build is anchored to the root\n');
    await write('out/result.txt', 'ignored directory\n');
    // Not descended into: a .gitignore inside an ignored directory cannot bring anything back.
    await write('out/.gitignore', '!result.txt\n');
    await write('src/gen/.gitignore', '*.gen.ts\n!keep.gen.ts\n/local.txt\n');
    await write('src/gen/a.gen.ts', 'generated\n');
    await write('src/gen/keep.gen.ts', 'kept by negation\n');
    await write('src/gen/local.txt', 'ignored: relative to src/gen\n');
    await write('src/local.txt', 'kept: the nested rule does not reach here\n');
    await write('src/gen/deep/b.gen.ts', 'ignored below the nested .gitignore too\n');
    await write('secrets/token', 'hidden by an extra pattern\n');
    await write('scratch.tmp', 'hidden by an extra pattern\n');
    await write('src/index.ts', 'export {};\n');
    // A nested .gitignore can bring back a directory a shallower one leaves out; the shallower one's other patterns
    // still apply inside it.
    await write('web/.gitignore', '!dist/\n');
    await write('web/dist/app.js', 'kept\n');
    await write('web/dist/debug.log', 'ignored by the root *.log\n');
    // Directory names are matched literally, glob characters and all.
    await write('lib[1]/.gitignore', '*.o\n');
    await write('lib[1]/a.o', 'object\n');
    await write('#notes/.gitignore', 'draft.md\n');
    await write('#notes/draft.md', 'draft\n');

    const checkpoint = await createCheckpointer(store).checkpoint(workspace, { ignore: ['secrets/', '*.tmp'] });
    const files = [...(await recorded(checkpoint.key))].filter(([, entry]) => entry.type !== 'dir').map(([p]) => p);
    expect(files.sort()).toEqual([
      '#notes/.gitignore',
      '.gitignore',
      'lib[1]/.gitignore',
      'src/build/kept.js',
      'src/gen/.gitignore',
      'src/gen/keep.gen.ts',
      'src/index.ts',
      'src/local.txt',
      'web/.gitignore',
      'web/dist/app.js',
    ]);
    expect(checkpoint.hashed).toBe(files.length);
  });

  it('lets the run’s patterns bring back what the defaults and .gitignore leave out', async () => {
    await write('.gitignore', 'vendor/\n');
    await write('node_modules/pkg/index.js', 'module.exports = 1;\n');
    await write('vendor/lib.js', 'vendored\n');
    const checkpoint = await createCheckpointer(store).checkpoint(workspace, {
      ignore: ['!node_modules/', '!vendor/'],
    });
    const entries = await recorded(checkpoint.key);
    expect(entries.has('node_modules/pkg/index.js')).toBe(true);
    expect(entries.has('vendor/lib.js')).toBe(true);
  });

  it('notices a .gitignore that changed between checkpoints', async () => {
    await write('.gitignore', '*.log\n');
    await write('a.log', 'log\n');
    await write('b.txt', 'text\n');
    const checkpointer = createCheckpointer(store);
    const before = await recorded((await checkpointer.checkpoint(workspace)).key);
    expect([...before.keys()].sort()).toEqual(['.gitignore', 'b.txt']);
    await write('.gitignore', '*.txt\n', { recent: true });
    const after = await recorded((await checkpointer.checkpoint(workspace)).key);
    expect([...after.keys()].sort()).toEqual(['.gitignore', 'a.log']);
  });

  it('records symlinks as their target text and never follows them', async () => {
    await write('../outside.txt', 'outside the workspace\n');
    await fs.symlink('/etc', path.join(workspace, 'etc'));
    await fs.symlink('../outside.txt', path.join(workspace, 'outside'));
    await fs.symlink('does/not/exist', path.join(workspace, 'dangling'));
    const checkpoint = await createCheckpointer(store).checkpoint(workspace);
    const entries = await recorded(checkpoint.key);
    expect([...entries.keys()].sort()).toEqual(['dangling', 'etc', 'outside']);
    expect(entries.get('etc')).toEqual({ name: 'etc', type: 'symlink', target: '/etc' });
    expect(entries.get('outside')).toEqual({ name: 'outside', type: 'symlink', target: '../outside.txt' });
    expect(entries.get('dangling')).toEqual({ name: 'dangling', type: 'symlink', target: 'does/not/exist' });
    expect(checkpoint).toMatchObject({ files: 0, hashed: 0 });
  });

  it('records a file over maxFileBytes as skipped with its size, without reading it', async () => {
    await write('big.bin', Buffer.alloc(5000, 1));
    await write('small.txt', 'small\n');
    const checkpoint = await createCheckpointer(store).checkpoint(workspace, { maxFileBytes: 1024 });
    expect(checkpoint).toMatchObject({ files: 1, hashed: 1, skipped: 1 });
    expect((await recorded(checkpoint.key)).get('big.bin')).toEqual({
      name: 'big.bin',
      type: 'skipped',
      size: 5000,
      reason: 'larger than 1024 bytes',
    });
    expect(await storedObjects()).toBe(2); // small.txt and the root tree: the large file's bytes were not stored
  });

  it('records an unreadable file and a socket as skipped instead of failing', async () => {
    await write('locked.txt', 'secret\n');
    await fs.chmod(path.join(workspace, 'locked.txt'), 0o000);
    await write('fine.txt', 'fine\n');
    const server = net.createServer();
    await new Promise<void>((resolve) => server.listen(path.join(workspace, 'agent.sock'), resolve));
    try {
      const checkpoint = await createCheckpointer(store).checkpoint(workspace);
      const entries = await recorded(checkpoint.key);
      expect(entries.get('agent.sock')).toEqual({
        name: 'agent.sock',
        type: 'skipped',
        size: 0,
        reason: 'special file',
      });
      expect(await blobText(entries.get('fine.txt'))).toBe('fine\n');
      // root reads any file: there the file is simply recorded.
      if (process.getuid?.() !== 0) {
        expect(entries.get('locked.txt')).toEqual({
          name: 'locked.txt',
          type: 'skipped',
          size: 7,
          reason: 'unreadable: EACCES',
        });
      }
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('leaves out a file that vanishes during the walk', async () => {
    for (let index = 0; index < 40; index++) await write(`file${String(index).padStart(2, '0')}.txt`, `${index}\n`);
    let removed = false;
    const removing: ContentStore = {
      ...store,
      put: async (content) => {
        // The first store happens while the last files still wait for a read slot.
        if (!removed) {
          removed = true;
          await fs.rm(path.join(workspace, 'file39.txt'));
        }
        return store.put(content);
      },
    };
    const checkpoint = await createCheckpointer(removing).checkpoint(workspace);
    const entries = await recorded(checkpoint.key);
    expect(entries.has('file39.txt')).toBe(false);
    expect(entries.size).toBe(39);
    expect(checkpoint.files).toBe(39);
  });

  it('fails when the store fails', async () => {
    await write('a.txt', 'a\n');
    const failing: ContentStore = {
      ...store,
      put: async () => {
        throw new Error('store is down');
      },
    };
    await expect(createCheckpointer(failing).checkpoint(workspace)).rejects.toThrow('store is down');
  });

  it('stores content found under two names once', async () => {
    await write('a.txt', 'same bytes\n');
    await write('sub/b.txt', 'same bytes\n');
    const checkpoint = await createCheckpointer(store).checkpoint(workspace);
    const entries = await recorded(checkpoint.key);
    expect(entries.get('a.txt')!.key).toBe(entries.get('sub/b.txt')!.key);
    expect(await storedObjects()).toBe(3); // one blob, the tree of sub and the root's
  });

  it('sees a directory replaced by a file, and a file deleted, with a warm cache', async () => {
    await write('thing/inside.txt', 'inside\n');
    await write('gone.txt', 'gone soon\n');
    await write('stays.txt', 'stays\n');
    const checkpointer = createCheckpointer(store);
    await checkpointer.checkpoint(workspace);
    await fs.rm(path.join(workspace, 'thing'), { recursive: true });
    await fs.rm(path.join(workspace, 'gone.txt'));
    await write('thing', 'now a file\n');
    const entries = await recorded((await checkpointer.checkpoint(workspace)).key);
    expect([...entries.keys()].sort()).toEqual(['stays.txt', 'thing']);
    expect(entries.get('thing')).toMatchObject({ type: 'file', size: 11 });
  });
});

describe('checkpoint trees', () => {
  const tree: CheckpointTree = {
    checkpoint: 1,
    entries: [
      { name: 'b', type: 'symlink', target: 'a"quoted"\n' },
      { name: 'a', type: 'file', mode: 0o644, key: contentKey('a'), size: 1 },
      { name: 'c', type: 'skipped', size: 9, reason: 'special file' },
    ],
  };

  it('serialises as canonical JSON in name order whatever order the entries come in', () => {
    const sorted = { ...tree, entries: [...tree.entries].sort((x, y) => (x.name < y.name ? -1 : 1)) };
    expect(serializeTree(tree)).toBe(canonicalJson(sorted));
    expect(serializeTree(sorted)).toBe(serializeTree(tree));
    expect(parseTree('sha256:x', serializeTree(tree))).toEqual(sorted);
  });

  it('refuses text that is not a tree, naming the key', () => {
    const key = contentKey('not a tree');
    expect(() => parseTree(key, 'not a tree')).toThrow(`Stored content ${key} is not a checkpoint tree`);
    expect(() => parseTree(key, '{"role":"user"}')).toThrow(key);
    expect(() => parseTree(key, '{"checkpoint":1,"entries":[{"name":"a/b","type":"file"}]}')).toThrow('entry 0');
    const unsorted =
      '{"checkpoint":1,"entries":[{"name":"b","type":"skipped","reason":"x"},{"name":"a","type":"skipped","reason":"x"}]}';
    expect(() => parseTree(key, unsorted)).toThrow('out of name order');
  });
});
