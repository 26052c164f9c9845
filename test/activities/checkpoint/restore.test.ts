// Restoring a checkpoint: only what differs is written or removed, modes and links come back as recorded, and a link
// the run left where the checkpoint has a directory is replaced, never written through.
import fs from 'node:fs/promises';
import path from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { createCheckpointer } from '../../../src/activities/checkpoint/checkpointer.js';
import { compareCheckpoints } from '../../../src/activities/checkpoint/compare.js';
import { restoreChanges } from '../../../src/activities/checkpoint/restore.js';
import { restoreWorkspace } from '../../../src/cli/workspace-files.js';
import type { ContentStore } from '../../../src/store/content-store.js';
import { useScratchWorkspace } from './scratch-workspace.js';

const scratch = useScratchWorkspace('restore');
let workspace: string;
let outside: string;
let store: ContentStore;

beforeEach(() => {
  ({ workspace, outside, store } = scratch);
});

async function write(rel: string, content: string, mode = 0o644): Promise<void> {
  const file = path.join(workspace, rel);
  await fs.mkdir(path.dirname(file), { recursive: true });
  await fs.writeFile(file, content);
  await fs.chmod(file, mode);
}

/** Restores the workspace from what it is now to `target`. */
async function restoreTo(target: string) {
  const now = await createCheckpointer(store).checkpoint(workspace);
  const changes = await compareCheckpoints(store, now.key, target as `sha256:${string}`);
  return restoreChanges(store, workspace, changes);
}

describe('restoring a checkpoint', () => {
  it('writes back changed and deleted files with their modes and links, removes added ones, and touches nothing else', async () => {
    await write('src/a.txt', 'a\n');
    await write('run.sh', '#!/bin/sh\n', 0o755);
    await write('keep.txt', 'unchanged\n');
    await fs.symlink('src/a.txt', path.join(workspace, 'link'));
    const target = (await createCheckpointer(store).checkpoint(workspace)).key;
    const keptInode = (await fs.stat(path.join(workspace, 'keep.txt'))).ino;

    await write('src/a.txt', 'changed\n');
    await fs.chmod(path.join(workspace, 'run.sh'), 0o644);
    await fs.rm(path.join(workspace, 'link'));
    await fs.symlink('elsewhere', path.join(workspace, 'link'));
    await write('new/dir/b.txt', 'added\n');

    const report = await restoreTo(target);
    expect(await fs.readFile(path.join(workspace, 'src/a.txt'), 'utf8')).toBe('a\n');
    expect((await fs.stat(path.join(workspace, 'run.sh'))).mode & 0o777).toBe(0o755);
    expect(await fs.readlink(path.join(workspace, 'link'))).toBe('src/a.txt');
    await expect(fs.stat(path.join(workspace, 'new'))).rejects.toMatchObject({ code: 'ENOENT' });
    // An unchanged file is not rewritten.
    expect((await fs.stat(path.join(workspace, 'keep.txt'))).ino).toBe(keptInode);
    expect(report.notRestored).toEqual([]);
    expect(report.written).toBeGreaterThanOrEqual(3);
  });

  it('replaces a link planted where the checkpoint has a directory, writing nothing through it', async () => {
    await write('out/gen.txt', 'generated\n');
    const target = (await createCheckpointer(store).checkpoint(workspace)).key;
    await fs.rm(path.join(workspace, 'out'), { recursive: true });
    await fs.symlink(outside, path.join(workspace, 'out'));

    await restoreTo(target);
    expect((await fs.lstat(path.join(workspace, 'out'))).isDirectory()).toBe(true);
    expect(await fs.readFile(path.join(workspace, 'out/gen.txt'), 'utf8')).toBe('generated\n');
    expect(await fs.readdir(outside)).toEqual([]);
  });

  it('turns a file back into the directory it was, and a directory back into the file', async () => {
    await write('x/inner.txt', 'inner\n');
    await write('y', 'file\n');
    const target = (await createCheckpointer(store).checkpoint(workspace)).key;
    await fs.rm(path.join(workspace, 'x'), { recursive: true });
    await write('x', 'now a file\n');
    await fs.rm(path.join(workspace, 'y'));
    await write('y/deeper.txt', 'now a directory\n');

    await restoreTo(target);
    expect(await fs.readFile(path.join(workspace, 'x/inner.txt'), 'utf8')).toBe('inner\n');
    expect(await fs.readFile(path.join(workspace, 'y'), 'utf8')).toBe('file\n');
  });

  it("is not refused when the run's last checkpoint holds the same files under another key (deltas)", async () => {
    for (let index = 0; index < 40; index++) await write(`src/m${index}.ts`, `${index}\n`);
    // A worker's checkpoints: after the first, each changed directory is stored as a delta on its last tree.
    const worker = createCheckpointer(store, { watch: true });
    const first = (await worker.checkpoint(workspace)).key;
    await write('src/m1.ts', 'changed\n');
    const last = (await worker.checkpoint(workspace)).key;
    const restored = await restoreWorkspace(store, workspace, { target: first, last, force: false });
    // The CLI's checkpoint of the same files is stored whole: another key, no change.
    expect(restored.now).not.toBe(last);
    expect(restored).toMatchObject({ restored: true, report: { written: 1, removed: 0 } });
    expect(await fs.readFile(path.join(workspace, 'src/m1.ts'), 'utf8')).toBe('1\n');

    await write('src/m2.ts', 'edited outside the run\n');
    const refused = await restoreWorkspace(store, workspace, { target: last, last: first, force: false });
    expect(refused).toMatchObject({ restored: false, outside: [{ path: 'src/m2.ts', change: 'modified' }] });
  });
});
