import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmod,
  lstat,
  mkdir,
  readFile,
  readdir,
  readlink,
  stat,
  symlink,
  unlink,
  utimes,
  writeFile,
} from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { executeReadFile } from '../../src/activities/executors/read-file.js';
import { executeWriteFile } from '../../src/activities/executors/write-file.js';
import { journalPath } from '../../src/activities/files/journal.js';
import { journalDirectory } from '../../src/activities/worker-data.js';
import { makeExecutorContext } from './executor-context.js';
import { runAsUnprivileged } from './files/run-as.js';
import { ToolSession, makeWorkspace, removeWorkspace } from './files/session.js';
import { mountSmallTmpfs } from './files/tmpfs.js';

let root: string;
let session: ToolSession;

beforeEach(async () => {
  root = await makeWorkspace('write-file-');
  session = new ToolSession(root);
});

afterEach(async () => {
  await removeWorkspace(root);
});

const sha256 = (content: string | Buffer) => createHash('sha256').update(content).digest('hex');
const read = (input: Record<string, unknown>) => session.run(executeReadFile, input);
const write = (input: Record<string, unknown>, options?: { attempt?: number; activityKey?: string }) =>
  session.run(executeWriteFile, input, options);

async function tempFilesIn(directory: string): Promise<string[]> {
  return (await readdir(directory)).filter((name) => name.includes('.agent-') && name.endsWith('.tmp'));
}

describe('WriteFile: create', () => {
  it('creates a file and its parent directories, byte-exact, and stores the new snapshot', async () => {
    const content = 'line 1\r\nline 2\r\nno newline at end';
    const { envelope, readStateUpdate } = await write({ path: 'deep/er/new.txt', content });
    const bytes = Buffer.byteLength(content);
    expect(envelope.status).toBe('success');
    expect(envelope.text).toBe(`Created 'deep/er/new.txt' (${bytes} bytes).`);
    expect(envelope.data).toMatchObject({
      path: 'deep/er/new.txt',
      operation: 'create',
      bytes_written: bytes,
      lines_added: 3,
      lines_removed: 0,
      diff_truncated: false,
    });
    expect(envelope.data.diff_preview).toContain('--- /dev/null\n+++ b/deep/er/new.txt\n');
    expect(envelope.data.diff_preview).toContain('+line 1');
    expect(await readFile(path.join(root, 'deep/er/new.txt'))).toEqual(Buffer.from(content));
    const info = await stat(path.join(root, 'deep/er/new.txt'));
    expect(envelope.stats).toMatchObject({ new_size_bytes: bytes, new_sha256: sha256(content) });
    expect(Math.abs((envelope.stats.new_mtime_ms as number) - info.mtimeMs)).toBeLessThan(1);
    expect(envelope.context.path_resolved).toBe('deep/er/new.txt');
    expect(readStateUpdate).toMatchObject({
      key: 'deep/er/new.txt',
      entry: { rel: 'deep/er/new.txt', sha256: sha256(content), size_bytes: bytes, source: 'write', partial: false },
    });
    expect(await tempFilesIn(path.join(root, 'deep/er'))).toEqual([]);
  });

  it('creates an empty file', async () => {
    const { envelope } = await write({ path: 'empty.txt', content: '' });
    expect(envelope.text).toBe("Created 'empty.txt' (0 bytes).");
    expect((await stat(path.join(root, 'empty.txt'))).size).toBe(0);
  });

  it('CONFLICT deleted_since_read when a file read earlier has gone', async () => {
    await writeFile(path.join(root, 'gone.txt'), 'v1\n');
    await read({ path: 'gone.txt' });
    await unlink(path.join(root, 'gone.txt'));
    const { envelope } = await write({ path: 'gone.txt', content: 'v2\n' });
    expect(envelope.error).toMatchObject({ code: 'CONFLICT', details: { reason: 'deleted_since_read' } });
    expect(envelope.text).toBe(
      "File 'gone.txt' has been deleted since it was last read. ReadFile it again, then retry.",
    );
    await expect(stat(path.join(root, 'gone.txt'))).rejects.toThrow();
  });

  it('recovers from a vanished file with ReadFile (NOT_FOUND) then WriteFile (create)', async () => {
    await writeFile(path.join(root, 'gone.txt'), 'v1\n');
    await read({ path: 'gone.txt' });
    await unlink(path.join(root, 'gone.txt'));
    expect((await read({ path: 'gone.txt' })).envelope.error?.code).toBe('NOT_FOUND');
    const { envelope } = await write({ path: 'gone.txt', content: 'v2\n' });
    expect(envelope.data.operation).toBe('create');
    expect(await readFile(path.join(root, 'gone.txt'), 'utf8')).toBe('v2\n');
  });

  it('INVALID_PARAM not_a_directory when a parent is a file', async () => {
    await writeFile(path.join(root, 'file.txt'), 'x');
    const { envelope } = await write({ path: 'file.txt/child.txt', content: 'y' });
    expect(envelope.error).toMatchObject({ code: 'INVALID_PARAM', details: { reason: 'not_a_directory' } });
  });

  it('creates the target of a dangling symlink inside the workspace', async () => {
    await symlink('real.txt', path.join(root, 'alias.txt'));
    const { envelope } = await write({ path: 'alias.txt', content: 'through the link' });
    expect(envelope.data.path).toBe('real.txt');
    expect(await readFile(path.join(root, 'real.txt'), 'utf8')).toBe('through the link');
    expect((await lstat(path.join(root, 'alias.txt'))).isSymbolicLink()).toBe(true);
  });

  it('serialises concurrent creates of one path: one creates, the other must read first', async () => {
    const [first, second] = await Promise.all([
      write({ path: 'race.txt', content: 'first' }),
      write({ path: 'race.txt', content: 'second' }),
    ]);
    // Whichever reaches the per-path lock first creates the file; the other finds it existing and unread.
    const winner = first.envelope.data.operation === 'create' ? first : second;
    const loser = winner === first ? second : first;
    expect(winner.envelope.data.operation).toBe('create');
    expect(loser.envelope.error).toMatchObject({ code: 'INVALID_PARAM', details: { reason: 'read_required' } });
    expect(await readFile(path.join(root, 'race.txt'), 'utf8')).toBe(winner === first ? 'first' : 'second');
  });
});

describe('WriteFile: overwrite', () => {
  it('INVALID_PARAM read_required without a prior ReadFile, leaving the file alone', async () => {
    await writeFile(path.join(root, 'a.txt'), 'original\n');
    const { envelope, readStateUpdate } = await write({ path: 'a.txt', content: 'new\n' });
    expect(envelope.error).toEqual({
      code: 'INVALID_PARAM',
      message: "You must ReadFile 'a.txt' before modifying it.",
      details: { reason: 'read_required' },
    });
    expect(envelope.text).toBe(envelope.error?.message);
    expect(readStateUpdate).toBeUndefined();
    expect(await readFile(path.join(root, 'a.txt'), 'utf8')).toBe('original\n');
  });

  it('overwrites after a read, reports the diff and refreshes the store', async () => {
    await writeFile(path.join(root, 'a.txt'), 'keep\nold\n');
    await read({ path: 'a.txt' });
    const { envelope, readStateUpdate } = await write({ path: 'a.txt', content: 'keep\nnew\nmore\n' });
    expect(envelope.status).toBe('success');
    expect(envelope.text).toBe("Overwrote 'a.txt' (+2/-1 lines, 14 bytes).");
    expect(envelope.data).toMatchObject({
      operation: 'overwrite',
      bytes_written: 14,
      lines_added: 2,
      lines_removed: 1,
    });
    expect(envelope.data.diff_preview).toBe('--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,3 @@\n keep\n-old\n+new\n+more\n');
    expect(envelope.data.lock_note).toBeUndefined();
    expect(readStateUpdate?.entry).toMatchObject({ sha256: sha256('keep\nnew\nmore\n'), source: 'write' });
    expect(await readFile(path.join(root, 'a.txt'), 'utf8')).toBe('keep\nnew\nmore\n');
    // The refreshed entry lets the next write through without another read.
    expect((await write({ path: 'a.txt', content: 'third\n' })).envelope.status).toBe('success');
  });

  it('CONFLICT modified_since_read with expected and actual, keeping the external change', async () => {
    const file = path.join(root, 'a.txt');
    await writeFile(file, 'v1\n');
    await read({ path: 'a.txt' });
    const entry = session.readState['a.txt']!;
    await writeFile(file, 'external v2\n');
    const info = await stat(file);
    const { envelope, readStateUpdate } = await write({ path: 'a.txt', content: 'mine\n' });
    expect(envelope.text).toBe("File 'a.txt' has been modified since it was last read. ReadFile it again, then retry.");
    expect(envelope.error?.code).toBe('CONFLICT');
    expect(envelope.error?.details).toMatchObject({
      reason: 'modified_since_read',
      expected: { mtime_ms: entry.mtime_ms, size_bytes: 3, sha256: sha256('v1\n') },
      actual: { size_bytes: 12, sha256: sha256('external v2\n') },
    });
    const actual = (envelope.error?.details as { actual: { mtime_ms: number } }).actual;
    expect(Math.abs(actual.mtime_ms - info.mtimeMs)).toBeLessThan(1);
    expect(readStateUpdate).toBeUndefined();
    expect(await readFile(file, 'utf8')).toBe('external v2\n');
  });

  it('proceeds with lock_note mtime_only_change when only the mtime moved', async () => {
    const file = path.join(root, 'a.txt');
    await writeFile(file, 'same\n');
    await read({ path: 'a.txt' });
    await utimes(file, new Date(2001, 1, 1), new Date(2001, 1, 1));
    const { envelope } = await write({ path: 'a.txt', content: 'changed\n' });
    expect(envelope.status).toBe('success');
    expect(envelope.data.lock_note).toBe('mtime_only_change');
  });

  it('writes through a symlink inside the workspace, keeping the link and the mode', async () => {
    const target = path.join(root, 'script.sh');
    await writeFile(target, '#!/bin/sh\necho 1\n');
    await chmod(target, 0o751);
    await symlink('script.sh', path.join(root, 'run.sh'));
    await read({ path: 'run.sh' });
    const { envelope } = await write({ path: 'run.sh', content: '#!/bin/sh\necho 2\n' });
    expect(envelope.data.path).toBe('script.sh');
    expect(await readlink(path.join(root, 'run.sh'))).toBe('script.sh');
    expect((await stat(target)).mode & 0o777).toBe(0o751);
    expect(await readFile(target, 'utf8')).toBe('#!/bin/sh\necho 2\n');
    expect(await tempFilesIn(root)).toEqual([]);
  });

  it('caps the diff preview at 100 lines and 10,240 bytes', async () => {
    const file = path.join(root, 'big.txt');
    await writeFile(file, Array.from({ length: 400 }, (_, index) => `old ${index}`).join('\n') + '\n');
    await read({ path: 'big.txt' });
    const content = Array.from({ length: 400 }, (_, index) => `new ${index} ${'x'.repeat(60)}`).join('\n') + '\n';
    const { envelope } = await write({ path: 'big.txt', content });
    const preview = envelope.data.diff_preview as string;
    expect(envelope.data.diff_truncated).toBe(true);
    expect(
      preview.split('\n').filter((line, index, all) => index < all.length - 1 || line !== '').length,
    ).toBeLessThanOrEqual(100);
    expect(Buffer.byteLength(preview)).toBeLessThanOrEqual(10_240);
    expect(preview).toMatch(/… \[diff truncated: \d+ more lines\]\n$/);
    expect(envelope.data).toMatchObject({ lines_added: 400, lines_removed: 400 });
    expect(envelope.status).toBe('success');
  });

  it('IS_DIRECTORY for a directory', async () => {
    await mkdir(path.join(root, 'dir'));
    const { envelope } = await write({ path: 'dir', content: 'x' });
    expect(envelope.error?.code).toBe('IS_DIRECTORY');
  });

  it('BINARY_FILE when overwriting a binary file', async () => {
    await writeFile(path.join(root, 'image.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x01]));
    const { envelope } = await write({ path: 'image.png', content: 'text' });
    expect(envelope.error?.code).toBe('BINARY_FILE');
    expect((await readFile(path.join(root, 'image.png'))).length).toBe(6);
  });

  it('INVALID_PARAM not_regular_file for a FIFO', async () => {
    execFileSync('mkfifo', [path.join(root, 'pipe')]);
    const { envelope } = await write({ path: 'pipe', content: 'x' });
    expect(envelope.error).toMatchObject({ code: 'INVALID_PARAM', details: { reason: 'not_regular_file' } });
  });
});

describe('WriteFile: workspace boundary', () => {
  it('ACCESS_DENIED for paths and symlinks leading outside, and nothing is written there', async () => {
    const outside = await makeWorkspace('write-outside-');
    try {
      await symlink(outside, path.join(root, 'out'));
      await symlink(path.join(outside, 'planted.txt'), path.join(root, 'dangling'));
      for (const input of ['../escape.txt', '~/x.txt', path.join(outside, 'abs.txt'), 'out/via-dir.txt', 'dangling']) {
        const { envelope } = await write({ path: input, content: 'pwned' });
        expect(envelope.error?.code).toBe('ACCESS_DENIED');
        expect(envelope.text).toBe(`Path '${input}' is outside the workspace.`);
      }
      expect(await readdir(outside)).toEqual([]);
    } finally {
      await removeWorkspace(outside);
    }
  });
});

describe('WriteFile: operating-system errors', () => {
  it('PERMISSION_DENIED os_permission when the directory is not writable', async () => {
    await chmod(root, 0o555);
    try {
      const { envelope } = await runAsUnprivileged({
        tool: 'WriteFile',
        root,
        input: { path: 'new.txt', content: 'x' },
      });
      expect(envelope.error).toMatchObject({
        code: 'PERMISSION_DENIED',
        details: { reason: 'os_permission', errno: 'EACCES' },
      });
      await expect(stat(path.join(root, 'new.txt'))).rejects.toThrow();
    } finally {
      await chmod(root, 0o755);
    }
  });

  it('EXECUTION_ERROR on ENOSPC, leaving the original and no temp file behind', async (context) => {
    const mount = await mountSmallTmpfs(64);
    if (!mount) return context.skip();
    try {
      const tight = new ToolSession(mount.root);
      await writeFile(path.join(mount.root, 'a.txt'), 'small\n');
      await tight.run(executeReadFile, { path: 'a.txt' });
      const { envelope } = await tight.run(executeWriteFile, { path: 'a.txt', content: 'y'.repeat(512 * 1024) });
      expect(envelope.error).toMatchObject({ code: 'EXECUTION_ERROR', details: { errno: 'ENOSPC' } });
      expect(envelope.text).toBe("Failed to write 'a.txt': no space left on device (ENOSPC).");
      expect(await readFile(path.join(mount.root, 'a.txt'), 'utf8')).toBe('small\n');
      expect(await tempFilesIn(mount.root)).toEqual([]);
    } finally {
      await mount.unmount();
    }
  });
});

describe('WriteFile: durable retry', () => {
  it('replays a committed overwrite on a retry attempt instead of reporting its own write as a conflict', async () => {
    const file = path.join(root, 'a.txt');
    await writeFile(file, 'v1\n');
    await read({ path: 'a.txt' });
    const staleStore = structuredClone(session.readState);
    const first = await write({ path: 'a.txt', content: 'v2\n' }, { activityKey: 'wf-1/activity-9' });
    expect(first.envelope.status).toBe('success');
    const mtimeAfterCommit = (await stat(file)).mtimeMs;

    // The worker died before Temporal recorded the result: attempt 2 runs with the store as it was before.
    const retry = await session.run(
      executeWriteFile,
      { path: 'a.txt', content: 'v2\n' },
      { attempt: 2, activityKey: 'wf-1/activity-9', readState: staleStore },
    );
    expect(retry.envelope.status).toBe('success');
    expect(retry.envelope.data).toMatchObject({ ...first.envelope.data, idempotent_replay: true });
    expect(retry.envelope.text).toBe(first.envelope.text);
    expect(retry.readStateUpdate?.entry).toMatchObject({ sha256: sha256('v2\n'), source: 'write' });
    expect((await stat(file)).mtimeMs).toBe(mtimeAfterCommit);
  });

  it('replays a committed create on a retry attempt', async () => {
    await write({ path: 'new.txt', content: 'hello' }, { activityKey: 'create-key' });
    const retry = await session.run(
      executeWriteFile,
      { path: 'new.txt', content: 'hello' },
      { attempt: 3, activityKey: 'create-key', readState: {} },
    );
    expect(retry.envelope.status).toBe('success');
    expect(retry.envelope.data).toMatchObject({ operation: 'create', idempotent_replay: true });
  });

  it('does not replay on a first attempt, nor when the file no longer holds the intended bytes', async () => {
    const file = path.join(root, 'a.txt');
    await writeFile(file, 'v1\n');
    await read({ path: 'a.txt' });
    const staleStore = structuredClone(session.readState);
    await write({ path: 'a.txt', content: 'v2\n' }, { activityKey: 'key-2' });

    const firstAttempt = await session.run(
      executeWriteFile,
      { path: 'a.txt', content: 'v2\n' },
      { attempt: 1, activityKey: 'key-2', readState: staleStore },
    );
    expect(firstAttempt.envelope.error?.details).toMatchObject({ reason: 'modified_since_read' });

    await writeFile(file, 'someone else\n');
    const retry = await session.run(
      executeWriteFile,
      { path: 'a.txt', content: 'v2\n' },
      { attempt: 2, activityKey: 'key-2', readState: staleStore },
    );
    expect(retry.envelope.error?.details).toMatchObject({ reason: 'modified_since_read' });
    expect(await readFile(file, 'utf8')).toBe('someone else\n');
  });

  it('keeps the journal record after a commit and sweeps records older than a day', async () => {
    const journal = journalDirectory(makeExecutorContext({ root, input: {} }).dataDir);
    const stale = journalPath(journal, 'ancient');
    await mkdir(path.dirname(stale), { recursive: true });
    await writeFile(stale, '{}');
    const twoDaysAgo = new Date(Date.now() - 2 * 24 * 60 * 60 * 1000);
    await utimes(stale, twoDaysAgo, twoDaysAgo);
    await write({ path: 'x.txt', content: 'x' }, { activityKey: 'fresh/key' });
    const record = JSON.parse(await readFile(journalPath(journal, 'fresh/key'), 'utf8'));
    expect(record).toMatchObject({
      tool: 'WriteFile',
      rel: 'x.txt',
      intended_sha256: sha256('x'),
      expected_sha256: null,
    });
    await expect(stat(stale)).rejects.toThrow();
  });
});
