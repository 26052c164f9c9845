import { chmod, readFile, readdir, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  createFileExclusively,
  removeLeftoverTemps,
  replaceFileAtomically,
  tempNameFor,
} from '../../../src/activities/files/atomic-write.js';
import { ConfinedDirectory } from '../../../src/activities/files/confined.js';
import { statSnapshot } from '../../../src/activities/files/snapshot.js';
import { makeWorkspace, removeWorkspace } from './session.js';

let root: string;
let directory: ConfinedDirectory;

beforeEach(async () => {
  root = await makeWorkspace('atomic-');
  directory = await ConfinedDirectory.open(root, '.');
});

afterEach(async () => {
  await directory.close();
  await removeWorkspace(root);
});

const listing = async () => (await readdir(root)).sort();

describe('replaceFileAtomically', () => {
  it('replaces the content, copies the mode and leaves no temp file', async () => {
    const target = path.join(root, 'a.txt');
    await writeFile(target, 'old');
    await chmod(target, 0o640);
    const expected = await statSnapshot(target);
    const result = await replaceFileAtomically({
      directory,
      name: path.basename(target),
      content: Buffer.from('new'),
      expected,
    });
    expect(result.ok).toBe(true);
    expect(await readFile(target, 'utf8')).toBe('new');
    expect((await stat(target)).mode & 0o777).toBe(0o640);
    expect(await listing()).toEqual(['a.txt']);
  });

  it('refuses with modified_during_write when the file changes just before the rename, and cleans up', async () => {
    const target = path.join(root, 'a.txt');
    await writeFile(target, 'old');
    const expected = await statSnapshot(target);
    const result = await replaceFileAtomically({
      directory,
      name: path.basename(target),
      content: Buffer.from('mine'),
      expected,
      // Another writer lands between our temp file and our rename.
      beforeCommit: () => writeFile(target, 'theirs, longer'),
    });
    expect(result).toEqual({ ok: false, reason: 'modified_during_write' });
    expect(await readFile(target, 'utf8')).toBe('theirs, longer');
    expect(await listing()).toEqual(['a.txt']);
  });

  it('refuses with modified_during_write when the file was deleted meanwhile', async () => {
    const target = path.join(root, 'a.txt');
    await writeFile(target, 'old');
    const expected = await statSnapshot(target);
    const { unlink } = await import('node:fs/promises');
    const result = await replaceFileAtomically({
      directory,
      name: path.basename(target),
      content: Buffer.from('x'),
      expected,
      beforeCommit: () => unlink(target),
    });
    expect(result).toEqual({ ok: false, reason: 'modified_during_write' });
    expect(await listing()).toEqual([]);
  });

  it('removes the temp file when a step throws', async () => {
    const target = path.join(root, 'a.txt');
    await writeFile(target, 'old');
    const expected = await statSnapshot(target);
    await expect(
      replaceFileAtomically({
        directory,
        name: path.basename(target),
        content: Buffer.from('x'),
        expected,
        beforeCommit: () => Promise.reject(new Error('journal failed')),
      }),
    ).rejects.toThrow('journal failed');
    expect(await listing()).toEqual(['a.txt']);
    expect(await readFile(target, 'utf8')).toBe('old');
  });
});

describe('createFileExclusively', () => {
  it('creates a new file', async () => {
    const target = path.join(root, 'new.txt');
    const result = await createFileExclusively({
      directory,
      name: path.basename(target),
      content: Buffer.from('hello'),
    });
    expect(result.ok).toBe(true);
    expect(await readFile(target, 'utf8')).toBe('hello');
    expect(await listing()).toEqual(['new.txt']);
  });

  it('refuses with created_concurrently when the file appears first, keeping the other content', async () => {
    const target = path.join(root, 'new.txt');
    const result = await createFileExclusively({
      directory,
      name: path.basename(target),
      content: Buffer.from('mine'),
      beforeCommit: () => writeFile(target, 'theirs'),
    });
    expect(result).toEqual({ ok: false, reason: 'created_concurrently' });
    expect(await readFile(target, 'utf8')).toBe('theirs');
    expect(await listing()).toEqual(['new.txt']);
  });
});

describe('tempNameFor', () => {
  it('names the temp file .<name>.agent-<rand>.tmp, bounded in length', () => {
    expect(tempNameFor('a.txt')).toMatch(/^\.a\.txt\.agent-[0-9a-f]{12}\.tmp$/);
    expect(tempNameFor('n'.repeat(250)).length).toBeLessThanOrEqual(255);
  });
});

describe('removeLeftoverTemps', () => {
  it("removes only the temp files its owner's earlier attempts left beside the target", async () => {
    const target = path.join(root, 'a.txt');
    await writeFile(target, 'old');
    const mine = [tempNameFor('a.txt', 'run/1/activity-3'), tempNameFor('a.txt', 'run/1/activity-3')];
    const others = [tempNameFor('a.txt', 'run/1/activity-4'), tempNameFor('a.txt'), tempNameFor('b.txt')];
    for (const temp of [...mine, ...others]) await writeFile(path.join(root, temp), 'partial');
    expect(mine[0]!.slice(0, 19)).toBe(mine[1]!.slice(0, 19));

    expect(await removeLeftoverTemps({ directory, name: 'a.txt' }, 'run/1/activity-3')).toBe(2);
    expect(await listing()).toEqual(['a.txt', ...others].sort());
  });
});
