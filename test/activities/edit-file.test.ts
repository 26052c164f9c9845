import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmod, mkdir, readFile, readdir, stat, symlink, unlink, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { executeEditFile } from '../../src/activities/executors/edit-file.js';
import { executeReadFile } from '../../src/activities/executors/read-file.js';
import { runAsUnprivileged } from './files/run-as.js';
import { ToolSession, makeWorkspace, removeWorkspace } from './files/session.js';
import { mountSmallTmpfs } from './files/tmpfs.js';

let root: string;
let session: ToolSession;

beforeEach(async () => {
  root = await makeWorkspace('edit-file-');
  session = new ToolSession(root);
});

afterEach(async () => {
  await removeWorkspace(root);
});

const sha256 = (content: string | Buffer) => createHash('sha256').update(content).digest('hex');
const read = (input: Record<string, unknown>) => session.run(executeReadFile, input);
const edit = (input: Record<string, unknown>, options?: { attempt?: number; activityKey?: string }) =>
  session.run(executeEditFile, input, options);

/** Writes a file and reads it through the tool, so the store holds an entry for it. */
async function prepare(name: string, content: string | Buffer): Promise<string> {
  const file = path.join(root, name);
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, content);
  const { envelope } = await read({ path: name });
  expect(envelope.status).not.toBe('error');
  return file;
}

describe('EditFile: success', () => {
  it('replaces one occurrence and reports data, stats and the refreshed entry', async () => {
    const file = await prepare('src/a.ts', 'const a = 1;\nconst b = 2;\n');
    const { envelope, readStateUpdate } = await edit({ path: 'src/a.ts', old_string: 'b = 2', new_string: 'b = 3' });
    const after = 'const a = 1;\nconst b = 3;\n';
    expect(envelope.status).toBe('success');
    expect(envelope.text).toBe("Edited 'src/a.ts': 1 edit(s), 1 replacement(s) (+1/-1 lines).");
    expect(envelope.data).toEqual({
      path: 'src/a.ts',
      applied: true,
      dry_run: false,
      edits_applied: 1,
      replacements: 1,
      diff_preview: '--- a/src/a.ts\n+++ b/src/a.ts\n@@ -1,2 +1,2 @@\n const a = 1;\n-const b = 2;\n+const b = 3;\n',
      diff_truncated: false,
      lines_added: 1,
      lines_removed: 1,
    });
    expect(envelope.stats).toMatchObject({
      bytes_written: 26,
      original_size: 26,
      new_size: 26,
      new_sha256: sha256(after),
    });
    expect(typeof envelope.stats.new_mtime_ms).toBe('number');
    expect(readStateUpdate).toMatchObject({ key: 'src/a.ts', entry: { sha256: sha256(after), source: 'edit' } });
    expect(await readFile(file, 'utf8')).toBe(after);
    expect((await readdir(path.join(root, 'src'))).sort()).toEqual(['a.ts']);
  });

  it('read → edit → edit: the refreshed entry lets the second edit through', async () => {
    const file = await prepare('a.txt', 'alpha\nbeta\n');
    expect((await edit({ path: 'a.txt', old_string: 'alpha', new_string: 'ALPHA' })).envelope.status).toBe('success');
    expect((await edit({ path: 'a.txt', old_string: 'beta', new_string: 'BETA' })).envelope.status).toBe('success');
    expect(await readFile(file, 'utf8')).toBe('ALPHA\nBETA\n');
  });

  it('replace_all replaces every occurrence and counts them', async () => {
    const file = await prepare('a.txt', 'x = foo(foo);\nfoo();\n');
    const { envelope } = await edit({ path: 'a.txt', old_string: 'foo', new_string: 'bar', replace_all: true });
    expect(envelope.data).toMatchObject({ replacements: 3, edits_applied: 1 });
    expect(await readFile(file, 'utf8')).toBe('x = bar(bar);\nbar();\n');
  });

  it('applies a multi-edit against the original content, all together', async () => {
    const file = await prepare('a.txt', 'a b c\n');
    const { envelope } = await edit({
      path: 'a.txt',
      edits: [
        { old_string: 'a', new_string: 'b', replace_all: false },
        { old_string: 'b', new_string: 'c', replace_all: false },
        { old_string: 'c', new_string: 'd', replace_all: false },
      ],
    });
    expect(envelope.text).toBe("Edited 'a.txt': 3 edit(s), 3 replacement(s) (+1/-1 lines).");
    // Each edit matched the original text, so 'b' from the first edit was not replaced again by the second.
    expect(await readFile(file, 'utf8')).toBe('b c d\n');
  });

  it('keeps CRLF line endings, matching old_string given with either ending', async () => {
    const file = await prepare('win.txt', 'one\r\ntwo\r\nthree\r\n');
    await edit({ path: 'win.txt', old_string: 'two\nthree', new_string: 'TWO\nTHREE\nFOUR' });
    expect(await readFile(file, 'utf8')).toBe('one\r\nTWO\r\nTHREE\r\nFOUR\r\n');
    await edit({ path: 'win.txt', old_string: 'one\r\nTWO', new_string: 'uno\r\ndos' });
    expect(await readFile(file, 'utf8')).toBe('uno\r\ndos\r\nTHREE\r\nFOUR\r\n');
  });

  it('leaves the line endings of untouched lines alone in a mixed file', async () => {
    const file = await prepare('mixed.txt', 'a\r\nb\nc\r\nd\r\n');
    await edit({ path: 'mixed.txt', old_string: 'd', new_string: 'D\nE' });
    expect(await readFile(file, 'utf8')).toBe('a\r\nb\nc\r\nD\r\nE\r\n');
  });

  it('keeps a UTF-8 BOM and writes non-ASCII text byte-exact', async () => {
    const bom = Buffer.from([0xef, 0xbb, 0xbf]);
    const file = await prepare('bom.txt', Buffer.concat([bom, Buffer.from('héllo wörld\n')]));
    await edit({ path: 'bom.txt', old_string: 'wörld', new_string: 'мир 🌍' });
    expect(await readFile(file)).toEqual(Buffer.concat([bom, Buffer.from('héllo мир 🌍\n')]));
  });

  it('dry_run previews without writing or touching the store', async () => {
    const file = await prepare('a.txt', 'keep\n');
    const entry = structuredClone(session.readState['a.txt']);
    const { envelope, readStateUpdate } = await edit({
      path: 'a.txt',
      old_string: 'keep',
      new_string: 'change',
      dry_run: true,
    });
    expect(envelope.status).toBe('partial');
    expect(envelope.data).toMatchObject({
      applied: false,
      dry_run: true,
      replacements: 1,
      lines_added: 1,
      lines_removed: 1,
    });
    expect(envelope.data.diff_preview).toContain('+change');
    expect(envelope.stats).toMatchObject({ bytes_written: 0, original_size: 5, new_size: 7 });
    expect(readStateUpdate).toBeUndefined();
    expect(session.readState['a.txt']).toEqual(entry);
    expect(await readFile(file, 'utf8')).toBe('keep\n');
  });

  it('proceeds with lock_note mtime_only_change when only the mtime moved', async () => {
    const file = await prepare('a.txt', 'same\n');
    await utimes(file, new Date(2003, 3, 3), new Date(2003, 3, 3));
    const { envelope } = await edit({ path: 'a.txt', old_string: 'same', new_string: 'other' });
    expect(envelope.status).toBe('success');
    expect(envelope.data.lock_note).toBe('mtime_only_change');
  });

  it('preserves the file mode', async () => {
    const file = await prepare('run.sh', '#!/bin/sh\necho a\n');
    await chmod(file, 0o700);
    await edit({ path: 'run.sh', old_string: 'echo a', new_string: 'echo b' });
    expect((await stat(file)).mode & 0o777).toBe(0o700);
  });
});

describe('EditFile: the read-before-write lock', () => {
  it('INVALID_PARAM read_required without a prior ReadFile', async () => {
    await writeFile(path.join(root, 'a.txt'), 'x\n');
    const { envelope } = await edit({ path: 'a.txt', old_string: 'x', new_string: 'y' });
    expect(envelope.error).toEqual({
      code: 'INVALID_PARAM',
      message: "You must ReadFile 'a.txt' before modifying it.",
      details: { reason: 'read_required' },
    });
    expect(await readFile(path.join(root, 'a.txt'), 'utf8')).toBe('x\n');
  });

  it('read → external change → edit = CONFLICT, and the external change is kept', async () => {
    const file = await prepare('a.txt', 'value = 1\n');
    const entry = session.readState['a.txt']!;
    await writeFile(file, 'value = 42\n');
    const { envelope, readStateUpdate } = await edit({ path: 'a.txt', old_string: 'value', new_string: 'v' });
    expect(envelope.error?.code).toBe('CONFLICT');
    expect(envelope.text).toBe("File 'a.txt' has been modified since it was last read. ReadFile it again, then retry.");
    expect(envelope.error?.details).toMatchObject({
      reason: 'modified_since_read',
      expected: { mtime_ms: entry.mtime_ms, size_bytes: 10, sha256: sha256('value = 1\n') },
      actual: { size_bytes: 11, sha256: sha256('value = 42\n') },
    });
    expect(readStateUpdate).toBeUndefined();
    expect(await readFile(file, 'utf8')).toBe('value = 42\n');
  });

  it('serialises two edits decided on the same read: the second one sees the first and conflicts', async () => {
    const file = await prepare('a.txt', 'one\ntwo\n');
    const store = structuredClone(session.readState);
    const [first, second] = await Promise.all([
      session.run(executeEditFile, { path: 'a.txt', old_string: 'one', new_string: '1' }, { readState: store }),
      session.run(executeEditFile, { path: 'a.txt', old_string: 'two', new_string: '2' }, { readState: store }),
    ]);
    // Whichever takes the per-path lock first wins; the other must see the change and conflict.
    const winner = first.envelope.status === 'success' ? first : second;
    const loser = winner === first ? second : first;
    expect(winner.envelope.status).toBe('success');
    expect(loser.envelope.error?.details).toMatchObject({ reason: 'modified_since_read' });
    expect(await readFile(file, 'utf8')).toBe(winner === first ? '1\ntwo\n' : 'one\n2\n');
  });
});

describe('EditFile: matching errors leave the file untouched', () => {
  it('INVALID_PARAM no_match with near_match_lines for a whitespace-only difference', async () => {
    const file = await prepare('a.py', 'def f():\n    return 1\n\ndef g():\n        return   2\n');
    const { envelope } = await edit({ path: 'a.py', old_string: 'def g():\n  return 2', new_string: 'x' });
    expect(envelope.error).toMatchObject({
      code: 'INVALID_PARAM',
      details: { reason: 'no_match', failed_index: 0, near_match_lines: [4] },
    });
    expect(envelope.text).toBe(
      "old_string was not found in 'a.py'. A match ignoring whitespace exists at line(s) 4; copy the exact text, including indentation, from ReadFile.",
    );
    expect(await readFile(file, 'utf8')).toContain('return   2');
  });

  it('INVALID_PARAM no_match without near_match_lines when nothing is close', async () => {
    await prepare('a.txt', 'hello\n');
    const { envelope } = await edit({ path: 'a.txt', old_string: 'absent', new_string: 'x' });
    expect(envelope.error?.details).toEqual({ reason: 'no_match', failed_index: 0 });
  });

  it('INVALID_PARAM multiple_matches with the count and the first ten lines', async () => {
    const content = Array.from({ length: 12 }, () => 'dup();').join('\n') + '\n';
    const file = await prepare('a.txt', content);
    const { envelope } = await edit({ path: 'a.txt', old_string: 'dup();', new_string: 'one();' });
    expect(envelope.error?.details).toEqual({
      reason: 'multiple_matches',
      failed_index: 0,
      match_count: 12,
      match_lines: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10],
    });
    expect(envelope.text).toContain('matches 12 locations');
    expect(await readFile(file, 'utf8')).toBe(content);
  });

  it('INVALID_PARAM no_change when old_string equals new_string', async () => {
    await prepare('a.txt', 'same\n');
    const { envelope } = await edit({ path: 'a.txt', old_string: 'same', new_string: 'same' });
    expect(envelope.error?.details).toEqual({ reason: 'no_change', failed_index: 0 });
  });

  it('multi-edit is all-or-nothing: a failing later edit names its index and nothing is written', async () => {
    const file = await prepare('a.txt', 'first\nsecond\n');
    const { envelope } = await edit({
      path: 'a.txt',
      edits: [
        { old_string: 'first', new_string: 'FIRST', replace_all: false },
        { old_string: 'missing', new_string: 'x', replace_all: false },
      ],
    });
    expect(envelope.error?.details).toMatchObject({ reason: 'no_match', failed_index: 1 });
    expect(envelope.text).toMatch(/^edits\[1\]\.old_string was not found in 'a\.txt'\./);
    expect(await readFile(file, 'utf8')).toBe('first\nsecond\n');
  });

  it('INVALID_PARAM overlap when two edits claim overlapping text', async () => {
    const file = await prepare('a.txt', 'abcdef\n');
    const { envelope } = await edit({
      path: 'a.txt',
      edits: [
        { old_string: 'abc', new_string: 'x', replace_all: false },
        { old_string: 'ef', new_string: 'y', replace_all: false },
        { old_string: 'cd', new_string: 'z', replace_all: false },
      ],
    });
    expect(envelope.error?.details).toEqual({ reason: 'overlap', indexes: [0, 2] });
    expect(await readFile(file, 'utf8')).toBe('abcdef\n');
  });

  it('INVALID_PARAM edit_form unless exactly one form is used', async () => {
    await prepare('a.txt', 'x\n');
    const both = await edit({
      path: 'a.txt',
      old_string: 'x',
      new_string: 'y',
      edits: [{ old_string: 'x', new_string: 'z', replace_all: false }],
    });
    expect(both.envelope.error).toMatchObject({ code: 'INVALID_PARAM', details: { reason: 'edit_form' } });
    const neither = await edit({ path: 'a.txt' });
    expect(neither.envelope.error?.details).toEqual({ reason: 'edit_form' });
    const half = await edit({ path: 'a.txt', old_string: 'x' });
    expect(half.envelope.error?.details).toEqual({ reason: 'edit_form' });
    expect(half.envelope.text).toBe('old_string and new_string must be given together (or use edits).');
  });

  it('INVALID_PARAM not_utf8 for a file that is text but not UTF-8', async () => {
    const file = await prepare('latin1.txt', Buffer.from('caf\xe9 au lait\n', 'latin1'));
    const { envelope } = await edit({ path: 'latin1.txt', old_string: 'lait', new_string: 'milk' });
    expect(envelope.error).toMatchObject({ code: 'INVALID_PARAM', details: { reason: 'not_utf8' } });
    expect(await readFile(file)).toEqual(Buffer.from('caf\xe9 au lait\n', 'latin1'));
  });
});

describe('EditFile: what the path names', () => {
  it('NOT_FOUND with the WriteFile hint', async () => {
    await writeFile(path.join(root, 'config.json'), '{}');
    const { envelope } = await edit({ path: 'Config', old_string: 'a', new_string: 'b' });
    expect(envelope.error?.code).toBe('NOT_FOUND');
    expect(envelope.text).toBe("File 'Config' does not exist; use WriteFile to create it.");
    expect(envelope.error?.details).toEqual({ suggestions: ['config.json'] });
  });

  it('NOT_FOUND for a file deleted after it was read', async () => {
    const file = await prepare('a.txt', 'x\n');
    await unlink(file);
    const { envelope } = await edit({ path: 'a.txt', old_string: 'x', new_string: 'y' });
    expect(envelope.error?.code).toBe('NOT_FOUND');
  });

  it('IS_DIRECTORY, BINARY_FILE and not_regular_file', async () => {
    await mkdir(path.join(root, 'dir'));
    expect((await edit({ path: 'dir', old_string: 'a', new_string: 'b' })).envelope.error?.code).toBe('IS_DIRECTORY');
    await writeFile(path.join(root, 'blob.bin'), Buffer.from([1, 2, 0, 3]));
    expect((await edit({ path: 'blob.bin', old_string: 'a', new_string: 'b' })).envelope.error?.code).toBe(
      'BINARY_FILE',
    );
    execFileSync('mkfifo', [path.join(root, 'pipe')]);
    expect((await edit({ path: 'pipe', old_string: 'a', new_string: 'b' })).envelope.error).toMatchObject({
      code: 'INVALID_PARAM',
      details: { reason: 'not_regular_file' },
    });
  });

  it('ACCESS_DENIED outside the workspace, including through a symlink', async () => {
    const outside = await makeWorkspace('edit-outside-');
    try {
      await writeFile(path.join(outside, 'victim.txt'), 'safe\n');
      await symlink(path.join(outside, 'victim.txt'), path.join(root, 'victim.txt'));
      for (const input of ['victim.txt', '../victim.txt', path.join(outside, 'victim.txt'), '~/victim.txt']) {
        const { envelope } = await edit({ path: input, old_string: 'safe', new_string: 'owned' });
        expect(envelope.error?.code).toBe('ACCESS_DENIED');
      }
      expect(await readFile(path.join(outside, 'victim.txt'), 'utf8')).toBe('safe\n');
    } finally {
      await removeWorkspace(outside);
    }
  });
});

describe('EditFile: operating-system errors', () => {
  it('PERMISSION_DENIED os_permission when the file cannot be read', async () => {
    await chmod(root, 0o755);
    const file = path.join(root, 'locked.txt');
    await writeFile(file, 'x\n');
    await chmod(file, 0o000);
    const { envelope } = await runAsUnprivileged({
      tool: 'EditFile',
      root,
      input: { path: 'locked.txt', old_string: 'x', new_string: 'y' },
    });
    expect(envelope.error).toMatchObject({
      code: 'PERMISSION_DENIED',
      details: { reason: 'os_permission', errno: 'EACCES' },
    });
  });

  it('EXECUTION_ERROR on ENOSPC with the original intact', async (context) => {
    const mount = await mountSmallTmpfs(64);
    if (!mount) return context.skip();
    try {
      const tight = new ToolSession(mount.root);
      await writeFile(path.join(mount.root, 'a.txt'), 'grow me\n');
      await tight.run(executeReadFile, { path: 'a.txt' });
      const { envelope } = await tight.run(executeEditFile, {
        path: 'a.txt',
        old_string: 'grow me',
        new_string: 'z'.repeat(256 * 1024),
      });
      expect(envelope.error).toMatchObject({ code: 'EXECUTION_ERROR', details: { errno: 'ENOSPC' } });
      expect(await readFile(path.join(mount.root, 'a.txt'), 'utf8')).toBe('grow me\n');
    } finally {
      await mount.unmount();
    }
  });
});

describe('EditFile: durable retry', () => {
  it('replays a committed edit on a retry attempt and does not apply it twice', async () => {
    const file = await prepare('a.txt', 'count: 1\n');
    const staleStore = structuredClone(session.readState);
    // Re-applying this edit would grow the file again, so a double write would show.
    const input = { path: 'a.txt', old_string: 'count: 1', new_string: 'count: 1 + 1' };
    const first = await edit(input, { activityKey: 'wf/edit-activity' });
    expect(first.envelope.status).toBe('success');

    const retry = await session.run(executeEditFile, input, {
      attempt: 2,
      activityKey: 'wf/edit-activity',
      readState: staleStore,
    });
    expect(retry.envelope.status).toBe('success');
    expect(retry.envelope.data).toMatchObject({ applied: true, replacements: 1, idempotent_replay: true });
    const { time_ms: _firstTime, ...firstStats } = first.envelope.stats;
    expect(retry.envelope.stats).toMatchObject(firstStats);
    expect(retry.readStateUpdate?.entry).toMatchObject({ sha256: sha256('count: 1 + 1\n'), source: 'edit' });
    expect(await readFile(file, 'utf8')).toBe('count: 1 + 1\n');
  });

  it('without the journal record a retry would have been a CONFLICT (another activity key)', async () => {
    await prepare('a.txt', 'x\n');
    const staleStore = structuredClone(session.readState);
    await edit({ path: 'a.txt', old_string: 'x', new_string: 'y' }, { activityKey: 'first' });
    const other = await session.run(
      executeEditFile,
      { path: 'a.txt', old_string: 'x', new_string: 'y' },
      { attempt: 2, activityKey: 'second', readState: staleStore },
    );
    expect(other.envelope.error?.details).toMatchObject({ reason: 'modified_since_read' });
  });
});
