// A checkpoint updated along one changed path is the checkpoint a full walk would make, and anything the path alone
// cannot settle is left to the full walk.
import fs from 'node:fs/promises';
import path from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { createCheckpointer } from '../../../src/activities/checkpoint/checkpointer.js';
import { compareCheckpoints } from '../../../src/activities/checkpoint/compare.js';
import { checkpointWithPath } from '../../../src/activities/checkpoint/path-update.js';
import type { ContentStore } from '../../../src/store/content-store.js';
import { useScratchWorkspace } from './scratch-workspace.js';

const scratch = useScratchWorkspace('path-update');
let temp: string;
let workspace: string;
let store: ContentStore;

beforeEach(async () => {
  ({ temp, workspace, store } = scratch);
  await write('src/lib/a.ts', 'export const a = 1;\n');
  await write('src/lib/b.ts', 'export const b = 2;\n');
  await write('README.md', '# project\n');
  await write('.gitignore', 'build/\n*.log\n');
  await write('src/.gitignore', 'generated/\n');
});

async function write(rel: string, content: string): Promise<void> {
  const file = path.join(workspace, rel);
  await fs.mkdir(path.dirname(file), { recursive: true });
  await fs.writeFile(file, content);
}

const full = async () => (await createCheckpointer(store).checkpoint(workspace)).key;

describe('a checkpoint updated along one path', () => {
  it('equals the full checkpoint after a change, a new file, a mode change and a removal', async () => {
    let previous = await full();
    const cases: [string, () => Promise<void>][] = [
      ['src/lib/a.ts', () => write('src/lib/a.ts', 'export const a = 10;\n')],
      ['src/lib/c.ts', () => write('src/lib/c.ts', 'export const c = 3;\n')],
      ['README.md', () => fs.chmod(path.join(workspace, 'README.md'), 0o755)],
      ['src/lib/b.ts', () => fs.rm(path.join(workspace, 'src/lib/b.ts'))],
    ];
    for (const [rel, change] of cases) {
      await change();
      const updated = await checkpointWithPath(store, workspace, previous, rel);
      // The same files; the keys may differ, a directory stored as a delta on one side and whole on the other.
      expect(await compareCheckpoints(store, updated!, await full()), rel).toEqual([]);
      expect(await compareCheckpoints(store, previous, updated!), rel).not.toEqual([]);
      previous = updated!;
    }
  });

  it("keeps the checkpoint for a path the rules leave out (root's and nested .gitignore, the run's patterns)", async () => {
    const previous = await full();
    for (const rel of ['build/out.js', 'debug.log', 'src/generated/x.ts', 'node_modules/p/index.js', 'tmp/x.txt']) {
      await write(rel, 'ignored\n');
      expect(await checkpointWithPath(store, workspace, previous, rel, ['tmp/']), rel).toBe(previous);
    }
  });

  it('leaves to a full checkpoint a new directory, a .gitignore, a link on the way and a directory in place of a file', async () => {
    const previous = await full();
    await write('docs/new.md', 'new\n');
    expect(await checkpointWithPath(store, workspace, previous, 'docs/new.md')).toBeUndefined();
    await write('.gitignore', 'build/\n');
    expect(await checkpointWithPath(store, workspace, previous, '.gitignore')).toBeUndefined();
    await fs.rm(path.join(workspace, 'src/lib'), { recursive: true });
    await fs.symlink(temp, path.join(workspace, 'src/lib'));
    expect(await checkpointWithPath(store, workspace, previous, 'src/lib/a.ts')).toBeUndefined();
    await fs.rm(path.join(workspace, 'README.md'));
    await fs.mkdir(path.join(workspace, 'README.md'));
    expect(await checkpointWithPath(store, workspace, previous, 'README.md')).toBeUndefined();
  });
});
