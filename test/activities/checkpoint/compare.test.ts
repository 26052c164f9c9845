// Comparing two checkpoints: the paths that differ, found by descending only into subtrees whose keys differ.
import fs from 'node:fs/promises';
import path from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import type { Checkpointer } from '../../../src/activities/checkpoint/checkpointer.js';
import { createCheckpointer } from '../../../src/activities/checkpoint/checkpointer.js';
import { compareCheckpoints } from '../../../src/activities/checkpoint/compare.js';
import type { FileChange } from '../../../src/protocol/checkpoint.js';
import { countChanges } from '../../../src/protocol/checkpoint.js';
import type { ContentKey } from '../../../src/protocol/content-key.js';
import { contentKey } from '../../../src/protocol/content-key.js';
import type { ContentStore } from '../../../src/store/content-store.js';
import { useScratchWorkspace } from './scratch-workspace.js';

const HOUR_AGO = new Date(Date.now() - 3_600_000);
const scratch = useScratchWorkspace('compare');
let workspace: string;
let store: ContentStore;
let checkpointer: Checkpointer;

beforeEach(() => {
  ({ workspace, store } = scratch);
  checkpointer = createCheckpointer(store);
});

async function write(rel: string, content: string): Promise<void> {
  const file = path.join(workspace, rel);
  await fs.mkdir(path.dirname(file), { recursive: true });
  await fs.writeFile(file, content);
  await fs.utimes(file, HOUR_AGO, HOUR_AGO);
}

async function checkpoint(): Promise<ContentKey> {
  return (await checkpointer.checkpoint(workspace)).key;
}

/** Each change as `<letter> <path>`, directories marked with a trailing '/'. */
function summary(changes: readonly FileChange[]): string[] {
  const letter = { added: 'A', modified: 'M', deleted: 'D' } as const;
  return changes.map((change) => {
    const isDirectory = (change.after ?? change.before)?.type === 'dir';
    return `${letter[change.change]} ${change.path}${isDirectory ? '/' : ''}`;
  });
}

/** The store with the keys it was asked for recorded. */
function recordingGets(inner: ContentStore): { store: ContentStore; gets: ContentKey[] } {
  const gets: ContentKey[] = [];
  return {
    store: {
      ...inner,
      get: async (key) => {
        gets.push(key);
        return inner.get(key);
      },
    },
    gets,
  };
}

describe('compareCheckpoints', () => {
  it('reports exactly the one file that changed, with both entries', async () => {
    for (let index = 0; index < 30; index++) await write(`pkg${index % 3}/src/file${index}.ts`, `v1 ${index}\n`);
    const before = await checkpoint();
    await write('pkg1/src/file7.ts', 'v2\n');
    const after = await checkpoint();
    expect(after).not.toBe(before);

    const changes = await compareCheckpoints(store, before, after);
    expect(changes).toEqual([
      {
        path: 'pkg1/src/file7.ts',
        change: 'modified',
        before: { name: 'file7.ts', type: 'file', mode: 0o644, size: 5, key: contentKey('v1 7\n') },
        after: { name: 'file7.ts', type: 'file', mode: 0o644, size: 3, key: contentKey('v2\n') },
      },
    ]);
    expect(countChanges(changes)).toEqual({ added: 0, modified: 1, deleted: 0 });
  });

  it('reads only the trees on the way to a change', async () => {
    await write('a/deep/x.txt', 'x\n');
    await write('b/deep/y.txt', 'y\n');
    await write('c/z.txt', 'z\n');
    const before = await checkpoint();
    const untouched = await compareCheckpoints(store, null, before);
    const treeOf = (dir: string) => untouched.find((change) => change.path === dir)!.after!.key!;
    await write('a/deep/x.txt', 'x2\n');
    const after = await checkpoint();

    const recording = recordingGets(store);
    expect(summary(await compareCheckpoints(recording.store, before, after))).toEqual(['M a/deep/x.txt']);
    // Root, a and a/deep on each side.
    expect(recording.gets).toHaveLength(6);
    for (const dir of ['b', 'b/deep', 'c']) expect(recording.gets).not.toContain(treeOf(dir));

    const same = recordingGets(store);
    expect(await compareCheckpoints(same.store, after, after)).toEqual([]);
    expect(same.gets).toEqual([]);
  });

  it('from null, lists everything as added, directories included', async () => {
    await write('b.txt', 'b\n');
    await write('a/one.txt', '1\n');
    await fs.mkdir(path.join(workspace, 'empty'));
    const changes = await compareCheckpoints(store, null, await checkpoint());
    expect(summary(changes)).toEqual(['A a/', 'A a/one.txt', 'A b.txt', 'A empty/']);
    expect(countChanges(changes)).toEqual({ added: 2, modified: 0, deleted: 0 });
  });

  it('reports a deleted file, and a deleted directory with what it held', async () => {
    await write('keep.txt', 'keep\n');
    await write('old.txt', 'old\n');
    await write('lib/a.txt', 'a\n');
    await write('lib/sub/b.txt', 'b\n');
    const before = await checkpoint();
    await fs.rm(path.join(workspace, 'old.txt'));
    await fs.rm(path.join(workspace, 'lib'), { recursive: true });
    const changes = await compareCheckpoints(store, before, await checkpoint());
    expect(summary(changes)).toEqual(['D lib/', 'D lib/a.txt', 'D lib/sub/', 'D lib/sub/b.txt', 'D old.txt']);
    expect(changes.at(-1)).toMatchObject({ before: { type: 'file', key: contentKey('old\n') } });
    expect(changes.at(-1)!.after).toBeUndefined();
    expect(countChanges(changes)).toEqual({ added: 0, modified: 0, deleted: 3 });
  });

  it('shows a directory that became a file, and the reverse, as deleted and added', async () => {
    await write('thing/inside.txt', 'inside\n');
    await write('other', 'a file\n');
    const before = await checkpoint();
    await fs.rm(path.join(workspace, 'thing'), { recursive: true });
    await write('thing', 'now a file\n');
    await fs.rm(path.join(workspace, 'other'));
    await write('other/nested.txt', 'now a directory\n');
    const changes = await compareCheckpoints(store, before, await checkpoint());
    expect(summary(changes)).toEqual([
      'D other',
      'A other/',
      'A other/nested.txt',
      'D thing/',
      'A thing',
      'D thing/inside.txt',
    ]);
    expect(countChanges(changes)).toEqual({ added: 2, modified: 0, deleted: 2 });
  });

  it('reports a new link target and a mode change as modified, a link that became a file as deleted and added', async () => {
    await write('script.sh', 'echo hi\n');
    await fs.chmod(path.join(workspace, 'script.sh'), 0o644);
    await fs.symlink('target-1', path.join(workspace, 'link'));
    await fs.symlink('somewhere', path.join(workspace, 'was-link'));
    const before = await checkpoint();
    await fs.chmod(path.join(workspace, 'script.sh'), 0o755);
    await fs.rm(path.join(workspace, 'link'));
    await fs.symlink('target-2', path.join(workspace, 'link'));
    await fs.rm(path.join(workspace, 'was-link'));
    await write('was-link', 'a file now\n');
    const changes = await compareCheckpoints(store, before, await checkpoint());
    expect(summary(changes)).toEqual(['M link', 'M script.sh', 'D was-link', 'A was-link']);
    expect(changes[0]).toMatchObject({ before: { target: 'target-1' }, after: { target: 'target-2' } });
    expect(changes[1]).toMatchObject({ before: { mode: 0o644 }, after: { mode: 0o755 } });
    expect(changes[1]!.before!.key).toBe(changes[1]!.after!.key);
  });

  it('refuses a key that is not a checkpoint tree', async () => {
    const key = await store.put('just some text');
    await expect(compareCheckpoints(store, null, key)).rejects.toThrow(
      `Stored content ${key} is not a checkpoint tree`,
    );
  });
});
