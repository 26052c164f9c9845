import { execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { appendFile, chmod, mkdir, stat, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { executeReadFile } from '../../src/activities/executors/read-file.js';
import { runAsUnprivileged } from './files/run-as.js';
import { ToolSession, makeWorkspace, removeWorkspace } from './files/session.js';

let root: string;
let session: ToolSession;

beforeEach(async () => {
  root = await makeWorkspace('read-file-');
  session = new ToolSession(root);
});

afterEach(async () => {
  await removeWorkspace(root);
});

const sha256 = (content: string | Buffer) => createHash('sha256').update(content).digest('hex');
const read = (input: Record<string, unknown>) => session.run(executeReadFile, input);

describe('ReadFile: success', () => {
  it('returns numbered lines, the documented data and stats, and a whole-file store entry', async () => {
    await mkdir(path.join(root, 'src'));
    await writeFile(path.join(root, 'src', 'a.ts'), 'one\ntwo\nthree\n');
    const before = Date.now();
    const { envelope, readStateUpdate } = await read({ path: './src/../src/a.ts' });
    expect(envelope.status).toBe('success');
    expect(envelope.text).toBe("Read 3 lines from 'src/a.ts' (lines 1-3 of 3).");
    expect(envelope.data).toEqual({
      path: 'src/a.ts',
      content: '   1 | one\n   2 | two\n   3 | three\n',
      start_line: 1,
      end_line: 3,
      lines_read: 3,
      total_lines: 3,
      truncated: false,
      truncation_reasons: [],
      next_offset: null,
      encoding: 'utf-8',
      modified_externally: false,
    });
    const info = await stat(path.join(root, 'src', 'a.ts'));
    expect(envelope.stats).toMatchObject({
      file_size_bytes: 14,
      sha256: sha256('one\ntwo\nthree\n'),
      lines_read: 3,
      total_lines: 3,
    });
    expect(Math.abs((envelope.stats.file_mtime_ms as number) - info.mtimeMs)).toBeLessThan(1);
    expect(envelope.stats.time_ms).toBeGreaterThanOrEqual(1);
    expect(envelope.context.path_resolved).toBe('src/a.ts');
    expect(envelope.error).toBeUndefined();
    expect(readStateUpdate?.key).toBe('src/a.ts');
    expect(readStateUpdate?.entry).toMatchObject({
      rel: 'src/a.ts',
      size_bytes: 14,
      sha256: sha256('one\ntwo\nthree\n'),
      source: 'read',
      partial: false,
    });
    expect(readStateUpdate?.entry?.read_at).toBeGreaterThanOrEqual(before);
  });

  it('counts lines: a final newline adds none, a missing one loses none, CR before LF is stripped', async () => {
    await writeFile(path.join(root, 'no-eol.txt'), 'a\nb');
    await writeFile(path.join(root, 'crlf.txt'), 'a\r\nb\r\n');
    const noEol = await read({ path: 'no-eol.txt' });
    expect(noEol.envelope.data.total_lines).toBe(2);
    const crlf = await read({ path: 'crlf.txt' });
    expect(crlf.envelope.data.content).toBe('   1 | a\n   2 | b\n');
    expect(crlf.envelope.data.total_lines).toBe(2);
  });

  it('reads an empty file as 0 lines with empty content', async () => {
    await writeFile(path.join(root, 'empty.txt'), '');
    const { envelope, readStateUpdate } = await read({ path: 'empty.txt' });
    expect(envelope.status).toBe('success');
    expect(envelope.data).toMatchObject({
      content: '',
      total_lines: 0,
      lines_read: 0,
      truncated: false,
      next_offset: null,
    });
    expect(readStateUpdate?.entry?.sha256).toBe(sha256(''));
  });

  it('reads a range as partial with line_limit and next_offset, and the entry still hashes the whole file', async () => {
    const content = Array.from({ length: 10 }, (_, index) => `line ${index + 1}`).join('\n') + '\n';
    await writeFile(path.join(root, 'ten.txt'), content);
    const { envelope, readStateUpdate } = await read({ path: 'ten.txt', offset: 3, limit: 4 });
    expect(envelope.status).toBe('partial');
    expect(envelope.text).toBe("Read 4 lines from 'ten.txt' (lines 3-6 of 10). Use offset=7 to continue.");
    expect(envelope.data).toMatchObject({
      content: '   3 | line 3\n   4 | line 4\n   5 | line 5\n   6 | line 6\n',
      start_line: 3,
      end_line: 6,
      lines_read: 4,
      truncated: true,
      truncation_reasons: ['line_limit'],
      next_offset: 7,
    });
    expect(readStateUpdate?.entry).toMatchObject({ sha256: sha256(content), partial: true });
  });

  it('reads the tail from an offset without truncation', async () => {
    await writeFile(path.join(root, 'ten.txt'), 'a\nb\nc\n');
    const { envelope } = await read({ path: 'ten.txt', offset: 3 });
    expect(envelope.status).toBe('success');
    expect(envelope.data).toMatchObject({ content: '   3 | c\n', next_offset: null, truncated: false });
  });

  it('cuts lines longer than 2000 characters (line_length) without offering an offset', async () => {
    await writeFile(path.join(root, 'long.txt'), `${'x'.repeat(2500)}\nshort\n`);
    const { envelope } = await read({ path: 'long.txt' });
    expect(envelope.status).toBe('partial');
    expect(envelope.data.truncation_reasons).toEqual(['line_length']);
    expect(envelope.data.next_offset).toBeNull();
    const first = (envelope.data.content as string).split('\n')[0]!;
    expect(first).toBe(`   1 | ${'x'.repeat(2000)}… [line truncated]`);
    expect(envelope.text).toBe("Read 2 lines from 'long.txt' (lines 1-2 of 2).");
  });

  it('stops before 40,960 bytes of content (byte_limit)', async () => {
    const line = 'y'.repeat(100);
    await writeFile(path.join(root, 'big.txt'), `${Array.from({ length: 1000 }, () => line).join('\n')}\n`);
    const { envelope } = await read({ path: 'big.txt' });
    const content = envelope.data.content as string;
    const perLine = Buffer.byteLength(`   1 | ${line}\n`);
    expect(Buffer.byteLength(content)).toBeLessThanOrEqual(40_960);
    expect(Buffer.byteLength(content) + perLine).toBeGreaterThan(40_960);
    expect(envelope.status).toBe('partial');
    expect(envelope.data.truncation_reasons).toEqual(['byte_limit']);
    const endLine = envelope.data.end_line as number;
    expect(envelope.data.next_offset).toBe(endLine + 1);
    expect(envelope.text).toContain(`Use offset=${endLine + 1} to continue.`);
  });

  it('decodes invalid UTF-8 with U+FFFD as partial utf-8-replace', async () => {
    await writeFile(path.join(root, 'latin1.txt'), Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]));
    const { envelope } = await read({ path: 'latin1.txt' });
    expect(envelope.status).toBe('partial');
    expect(envelope.data.encoding).toBe('utf-8-replace');
    expect(envelope.data.content).toBe('   1 | caf\uFFFD\n');
    expect(envelope.data.truncated).toBe(false);
  });

  it('strips a BOM from the content but hashes the bytes as they are', async () => {
    const bytes = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('hi\n')]);
    await writeFile(path.join(root, 'bom.txt'), bytes);
    const { envelope } = await read({ path: 'bom.txt' });
    expect(envelope.data.content).toBe('   1 | hi\n');
    expect(envelope.stats.sha256).toBe(sha256(bytes));
  });

  it('flags modified_externally when the stored hash differs, and refreshes the entry', async () => {
    const file = path.join(root, 'a.txt');
    await writeFile(file, 'v1\n');
    expect((await read({ path: 'a.txt' })).envelope.data.modified_externally).toBe(false);
    expect((await read({ path: 'a.txt' })).envelope.data.modified_externally).toBe(false);
    await writeFile(file, 'v2\n');
    expect((await read({ path: 'a.txt' })).envelope.data.modified_externally).toBe(true);
    expect(session.readState['a.txt']?.sha256).toBe(sha256('v2\n'));
  });

  it('reads through a symlink inside the workspace, keyed by the target', async () => {
    await writeFile(path.join(root, 'target.txt'), 't\n');
    await symlink('target.txt', path.join(root, 'link.txt'));
    const { envelope, readStateUpdate } = await read({ path: 'link.txt' });
    expect(envelope.data.path).toBe('target.txt');
    expect(readStateUpdate?.key).toBe('target.txt');
  });
});

describe('ReadFile: errors', () => {
  it('INVALID_PARAM out_of_range when offset exceeds the file length', async () => {
    await writeFile(path.join(root, 'three.txt'), 'a\nb\nc\n');
    const { envelope, readStateUpdate } = await read({ path: 'three.txt', offset: 5 });
    expect(envelope.status).toBe('error');
    expect(envelope.text).toBe('offset (5) exceeds file length (3 lines). Valid range: 1..3.');
    expect(envelope.error).toEqual({
      code: 'INVALID_PARAM',
      message: envelope.text,
      details: { reason: 'out_of_range', total_lines: 3 },
    });
    expect(readStateUpdate).toBeUndefined();
  });

  it('INVALID_PARAM when an empty file is read from an offset other than 1', async () => {
    await writeFile(path.join(root, 'empty.txt'), '');
    const { envelope } = await read({ path: 'empty.txt', offset: 2 });
    expect(envelope.error).toMatchObject({
      code: 'INVALID_PARAM',
      details: { reason: 'out_of_range', total_lines: 0 },
    });
  });

  it('NOT_FOUND with up to three similar names, and deletes the stale store entry', async () => {
    await mkdir(path.join(root, 'docs'));
    for (const name of ['README.md', 'readme.md.bak', 'old-readme.md', 'other-readme.md.orig', 'unrelated.txt']) {
      await writeFile(path.join(root, 'docs', name), 'x\n');
    }
    session.readState['docs/readme.md'] = {
      rel: 'docs/readme.md',
      mtime_ms: 1,
      size_bytes: 1,
      sha256: 'stale',
      read_at: 1,
      source: 'read',
      partial: false,
    };
    const { envelope, readStateUpdate } = await read({ path: 'docs/readme.md' });
    expect(envelope.error?.code).toBe('NOT_FOUND');
    const suggestions = envelope.error?.details?.suggestions as string[];
    expect(suggestions).toEqual(['docs/README.md', 'docs/old-readme.md', 'docs/readme.md.bak']);
    expect(envelope.text).toBe(`File 'docs/readme.md' does not exist. Did you mean: ${suggestions.join(', ')}?`);
    expect(readStateUpdate).toEqual({ key: 'docs/readme.md', entry: null });
    expect(session.readState['docs/readme.md']).toBeUndefined();
  });

  it('NOT_FOUND with no suggestions when the directory is missing too', async () => {
    const { envelope } = await read({ path: 'nowhere/file.txt' });
    expect(envelope.error).toMatchObject({ code: 'NOT_FOUND', details: { suggestions: [] } });
    expect(envelope.text).toBe("File 'nowhere/file.txt' does not exist.");
  });

  it('IS_DIRECTORY for a directory', async () => {
    await mkdir(path.join(root, 'src'));
    const { envelope } = await read({ path: 'src' });
    expect(envelope.error?.code).toBe('IS_DIRECTORY');
    expect(envelope.text).toBe("'src' is a directory; use Glob.");
  });

  it('INVALID_PARAM not_regular_file for a FIFO, without blocking on it', async () => {
    execFileSync('mkfifo', [path.join(root, 'pipe')]);
    const { envelope } = await read({ path: 'pipe' });
    expect(envelope.error).toMatchObject({ code: 'INVALID_PARAM', details: { reason: 'not_regular_file' } });
  });

  it('BINARY_FILE for a NUL byte in the first 8 KiB', async () => {
    await writeFile(path.join(root, 'nul.bin'), Buffer.concat([Buffer.from('a'.repeat(8000)), Buffer.from([0])]));
    const { envelope, readStateUpdate } = await read({ path: 'nul.bin' });
    expect(envelope.error?.code).toBe('BINARY_FILE');
    expect(readStateUpdate).toBeUndefined();
  });

  it('BINARY_FILE for more than 30% control bytes in the first 4 KiB, but not for 30% or less', async () => {
    const mostlyControl = Buffer.alloc(100, 0x41);
    mostlyControl.fill(0x01, 0, 31);
    await writeFile(path.join(root, 'ctl.bin'), mostlyControl);
    expect((await read({ path: 'ctl.bin' })).envelope.error?.code).toBe('BINARY_FILE');
    const someControl = Buffer.alloc(100, 0x41);
    someControl.fill(0x1b, 0, 30);
    await writeFile(path.join(root, 'ansi.txt'), someControl);
    expect((await read({ path: 'ansi.txt' })).envelope.status).toBe('success');
  });

  it('ACCESS_DENIED for ../ paths, absolute paths outside, ~ and escaping symlinks', async () => {
    const outside = await makeWorkspace('read-outside-');
    try {
      await writeFile(path.join(outside, 'secret.txt'), 'secret\n');
      await symlink(path.join(outside, 'secret.txt'), path.join(root, 'leak.txt'));
      for (const input of ['../../etc/passwd', '/etc/passwd', '~/x', 'leak.txt', path.join(outside, 'secret.txt')]) {
        const { envelope, readStateUpdate } = await read({ path: input });
        expect(envelope.error?.code).toBe('ACCESS_DENIED');
        expect(envelope.text).toBe(`Path '${input}' is outside the workspace.`);
        expect(JSON.stringify(envelope)).not.toContain('secret\\n');
        expect(readStateUpdate).toBeUndefined();
      }
    } finally {
      await removeWorkspace(outside);
    }
  });

  it('CONFLICT changed_during_read when the file keeps changing while it is read', async () => {
    const file = path.join(root, 'growing.log');
    await writeFile(file, 'z'.repeat(32 * 1024 * 1024));
    // A separate process appends without pause, so every stat–read–stat window sees a new version.
    const writer = spawn('bash', ['-c', `while :; do printf 'x\\n' >> '${file}'; done`], { stdio: 'ignore' });
    try {
      await new Promise((resolve) => setTimeout(resolve, 50));
      let conflict = false;
      for (let attempt = 0; attempt < 5 && !conflict; attempt++) {
        const { envelope, readStateUpdate } = await read({ path: 'growing.log', limit: 1 });
        if (envelope.error) {
          expect(envelope.error).toMatchObject({ code: 'CONFLICT', details: { reason: 'changed_during_read' } });
          expect(readStateUpdate).toBeUndefined();
          conflict = true;
        }
      }
      expect(conflict).toBe(true);
    } finally {
      writer.kill('SIGKILL');
    }
  });

  it('PERMISSION_DENIED os_permission when the OS refuses to open the file', async () => {
    await chmod(root, 0o755);
    await writeFile(path.join(root, 'locked.txt'), 'x\n');
    await chmod(path.join(root, 'locked.txt'), 0o000);
    const { envelope } = await runAsUnprivileged({ tool: 'ReadFile', root, input: { path: 'locked.txt' } });
    expect(envelope.error).toMatchObject({
      code: 'PERMISSION_DENIED',
      details: { reason: 'os_permission', errno: 'EACCES' },
    });
    expect(envelope.text).toBe("Cannot read 'locked.txt': permission denied (EACCES).");
  });

  it('reads a file that another process appends to after the read finished (stable read)', async () => {
    const file = path.join(root, 'log.txt');
    await writeFile(file, 'a\n');
    expect((await read({ path: 'log.txt' })).envelope.status).toBe('success');
    await appendFile(file, 'b\n');
    expect((await read({ path: 'log.txt' })).envelope.data.total_lines).toBe(2);
  });
});
