import { chmod, readFile, readdir, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  createFileExclusively,
  removeLeftoverTemps,
  replaceFileAtomically,
  tempPathFor,
} from '../../../src/activities/files/atomic-write.js';
import { statSnapshot } from '../../../src/activities/files/snapshot.js';
import { makeWorkspace, removeWorkspace } from './session.js';

let root: string;

beforeEach(async () => {
  root = await makeWorkspace('atomic-');
});

afterEach(async () => {
  await removeWorkspace(root);
});

const listing = async () => (await readdir(root)).sort();

describe('replaceFileAtomically', () => {
  it('replaces the content, copies the mode and leaves no temp file', async () => {
    const target = path.join(root, 'a.txt');
    await writeFile(target, 'old');
    await chmod(target, 0o640);
    const expected = await statSnapshot(target);
    const result = await replaceFileAtomically({ target, content: Buffer.from('new'), expected });
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
      target,
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
      target,
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
        target,
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
    const result = await createFileExclusively({ target, content: Buffer.from('hello') });
    expect(result.ok).toBe(true);
    expect(await readFile(target, 'utf8')).toBe('hello');
    expect(await listing()).toEqual(['new.txt']);
  });

  it('refuses with created_concurrently when the file appears first, keeping the other content', async () => {
    const target = path.join(root, 'new.txt');
    const result = await createFileExclusively({
      target,
      content: Buffer.from('mine'),
      beforeCommit: () => writeFile(target, 'theirs'),
    });
    expect(result).toEqual({ ok: false, reason: 'created_concurrently' });
    expect(await readFile(target, 'utf8')).toBe('theirs');
    expect(await listing()).toEqual(['new.txt']);
  });
});

describe('tempPathFor', () => {
  it('names the temp file .<name>.agent-<rand>.tmp beside the target, bounded in length', () => {
    const temp = tempPathFor(path.join(root, 'a.txt'));
    expect(path.dirname(temp)).toBe(root);
    expect(path.basename(temp)).toMatch(/^\.a\.txt\.agent-[0-9a-f]{12}\.tmp$/);
    expect(path.basename(tempPathFor(path.join(root, 'n'.repeat(250)))).length).toBeLessThanOrEqual(255);
  });
});

describe('removeLeftoverTemps', () => {
  it("removes only the temp files its owner's earlier attempts left beside the target", async () => {
    const target = path.join(root, 'a.txt');
    await writeFile(target, 'old');
    const mine = [tempPathFor(target, 'run/1/activity-3'), tempPathFor(target, 'run/1/activity-3')];
    const others = [
      tempPathFor(target, 'run/1/activity-4'),
      tempPathFor(target),
      tempPathFor(path.join(root, 'b.txt')),
    ];
    for (const temp of [...mine, ...others]) await writeFile(temp, 'partial');
    expect(path.basename(mine[0]!).slice(0, 19)).toBe(path.basename(mine[1]!).slice(0, 19));

    expect(await removeLeftoverTemps(target, 'run/1/activity-3')).toBe(2);
    expect(await listing()).toEqual(['a.txt', ...others.map((temp) => path.basename(temp))].sort());
    expect(await removeLeftoverTemps(path.join(root, 'missing-dir', 'c.txt'), 'x')).toBe(0);
  });
});
