// Grep executor behaviour (docs/tools.md §11.5 Grep): modes, limits, context, line capping, candidate filters, engine
// fallback and every error code. The engine-specific cases run on both engines.
import { execa } from 'execa';
import { chmod, mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createGrepExecutor, executeGrep } from '../../src/activities/executors/grep.js';
import { GREP_LINE_MARKER, MAX_GREP_LINE_CHARS } from '../../src/activities/search/grep-results.js';
import { RG_PATH_VARIABLE } from '../../src/activities/search/grep-rg.js';
import type { ToolExecutor } from '../../src/activities/executors/types.js';
import { requireRipgrep } from '../support/optional-tools.js';
import { makeExecutorContext } from './executor-context.js';

let root: string;
let outside: string;

async function files(entries: Record<string, string | Buffer>): Promise<void> {
  for (const [relative, content] of Object.entries(entries)) {
    await mkdir(path.dirname(path.join(root, relative)), { recursive: true });
    await writeFile(path.join(root, relative), content);
  }
}

async function grepIn(input: Record<string, unknown>, executor: ToolExecutor = executeGrep) {
  return (await executor(makeExecutorContext({ root, input }))).envelope;
}

async function withEnvironment<T>(name: string, value: string, run: () => Promise<T>): Promise<T> {
  const previous = process.env[name];
  process.env[name] = value;
  try {
    return await run();
  } finally {
    if (previous === undefined) delete process.env[name];
    else process.env[name] = previous;
  }
}

beforeEach(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), 'grep-'));
  outside = await mkdtemp(path.join(os.tmpdir(), 'grep-outside-'));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
  await rm(outside, { recursive: true, force: true });
});

const engines = [
  ['rg', createGrepExecutor({ engine: 'rg' })],
  ['js', createGrepExecutor({ engine: 'js' })],
] as const;

describe.each(engines)('Grep with the %s engine', (engine, executor) => {
  beforeEach(async (context) => {
    if (engine === 'rg') await requireRipgrep(context);
  });

  it('returns matching lines sorted by file and line, case-insensitive by default', async () => {
    await files({ 'b.ts': 'Alpha\nbeta\nALPHA\n', 'a.ts': 'x\nalpha\n', 'c/d.ts': 'nothing\n' });
    const envelope = await grepIn({ pattern: 'alpha' }, executor);
    expect(envelope.status).toBe('success');
    expect(envelope.data).toEqual({
      matches: [
        { file: 'a.ts', line: 2, text: 'alpha' },
        { file: 'b.ts', line: 1, text: 'Alpha' },
        { file: 'b.ts', line: 3, text: 'ALPHA' },
      ],
      count: 3,
      files_searched: 3,
      truncated: false,
      truncation_reasons: [],
      engine,
    });
    expect(envelope.text).toBe("Found 3 matching line(s) in 2 file(s) under '.'.");
    const sensitive = await grepIn({ pattern: 'alpha', case_sensitive: true }, executor);
    expect(sensitive.data.count).toBe(1);
  });

  it('merges context: a line shown after one match is not repeated before the next', async () => {
    const lines = Array.from({ length: 20 }, (_, index) =>
      index + 1 === 5 || index + 1 === 7 || index + 1 === 15 ? `hit ${index + 1}` : `line ${index + 1}`,
    );
    await files({ 'a.txt': lines.join('\n') + '\n' });
    const envelope = await grepIn({ pattern: '^hit', context: 2 }, executor);
    expect(envelope.data.matches).toEqual([
      { file: 'a.txt', line: 5, text: 'hit 5', before: ['line 3', 'line 4'], after: ['line 6'] },
      { file: 'a.txt', line: 7, text: 'hit 7', after: ['line 8', 'line 9'] },
      { file: 'a.txt', line: 15, text: 'hit 15', before: ['line 13', 'line 14'], after: ['line 16', 'line 17'] },
    ]);
  });

  it('stops context at the file edges', async () => {
    await files({ 'a.txt': 'hit first\nmiddle\nhit last' });
    const envelope = await grepIn({ pattern: 'hit', context: 5 }, executor);
    expect(envelope.data.matches).toEqual([
      { file: 'a.txt', line: 1, text: 'hit first', after: ['middle'] },
      { file: 'a.txt', line: 3, text: 'hit last' },
    ]);
  });

  it('caps content results at limit matching lines; context does not count', async () => {
    await files({ 'a.txt': 'm1\nm2\nx\n', 'b.txt': 'm3\nm4\n' });
    const envelope = await grepIn({ pattern: '^m', limit: 3, context: 1 }, executor);
    expect(envelope.status).toBe('partial');
    expect(envelope.data.matches).toEqual([
      { file: 'a.txt', line: 1, text: 'm1' },
      { file: 'a.txt', line: 2, text: 'm2', after: ['x'] },
      { file: 'b.txt', line: 1, text: 'm3', after: ['m4'] },
    ]);
    expect(envelope.data.truncation_reasons).toEqual(['match_limit']);
    const exact = await grepIn({ pattern: '^m', limit: 4 }, executor);
    expect(exact.status).toBe('success');
    expect(exact.data.truncated).toBe(false);
  });

  it('lists files and counts, with limit counting files', async () => {
    await files({ 'a.txt': 'hit\nhit\n', 'b.txt': 'miss\n', 'c.txt': 'hit\n', 'd.txt': 'hit hit\nhit\nhit\n' });
    const listed = await grepIn({ pattern: 'hit', output_mode: 'files_with_matches', limit: 2 }, executor);
    expect(listed.status).toBe('partial');
    expect(listed.data).toMatchObject({ files: ['a.txt', 'c.txt'], count: 2, truncation_reasons: ['match_limit'] });
    expect(listed.text).toBe(
      "Found 2 file(s) with matches under '.'. More matches exist beyond limit=2; narrow the pattern, path or glob, or raise limit.",
    );
    const counted = await grepIn({ pattern: 'hit', output_mode: 'count' }, executor);
    expect(counted.status).toBe('success');
    expect(counted.data).toMatchObject({
      counts: [
        { file: 'a.txt', count: 2 },
        { file: 'c.txt', count: 1 },
        { file: 'd.txt', count: 3 },
      ],
      count: 6,
    });
    expect(counted.text).toBe("Found 6 matching line(s) in 3 file(s) under '.'.");
  });

  it('cuts lines at 2,000 characters including the marker, context lines too', async () => {
    const long = `${'é'.repeat(2500)} hit`;
    await files({ 'a.txt': `${'x'.repeat(2100)}\n${long}\n` });
    const envelope = await grepIn({ pattern: 'hit', context: 1 }, executor);
    const [match] = envelope.data.matches as { text: string; before: string[] }[];
    expect(match!.text).toHaveLength(MAX_GREP_LINE_CHARS);
    expect(match!.text.endsWith(GREP_LINE_MARKER)).toBe(true);
    expect(match!.before[0]).toHaveLength(MAX_GREP_LINE_CHARS);
    expect(envelope.status).toBe('partial');
    expect(envelope.data.truncation_reasons).toEqual(['line_length']);
  });

  it('matches CRLF lines without their carriage return', async () => {
    await files({ 'a.txt': 'foo \r\nfoo\r\n' });
    const envelope = await grepIn({ pattern: 'foo$' }, executor);
    expect(envelope.data.matches).toEqual([{ file: 'a.txt', line: 2, text: 'foo' }]);
    expect((await grepIn({ pattern: '\\s$' }, executor)).data.matches).toEqual([
      { file: 'a.txt', line: 1, text: 'foo ' },
    ]);
  });

  it('skips hidden, ignored, binary and symlinked files, but searches a file named explicitly', async () => {
    await files({
      '.gitignore': 'gen/\n',
      '.hidden/a.txt': 'needle\n',
      'node_modules/p/a.js': 'needle\n',
      'gen/a.txt': 'needle\n',
      'bin.dat': Buffer.from('needle\0\0'),
      'src/a.txt': 'needle\n',
    });
    await symlink(path.join(root, 'src/a.txt'), path.join(root, 'link.txt'));
    const envelope = await grepIn({ pattern: 'needle', output_mode: 'files_with_matches' }, executor);
    expect(envelope.data.files).toEqual(['src/a.txt']);
    expect(envelope.data.files_searched).toBe(1);
    const explicit = await grepIn({ pattern: 'needle', path: '.hidden/a.txt' }, executor);
    expect(explicit.data.matches).toEqual([{ file: '.hidden/a.txt', line: 1, text: 'needle' }]);
  });

  it('filters by glob; a glob without "/" matches file names at any depth', async () => {
    await files({ 'a.ts': 'hit\n', 'src/b.ts': 'hit\n', 'src/c.js': 'hit\n', 'src/deep/d.ts': 'hit\n' });
    const byName = await grepIn({ pattern: 'hit', glob: '*.ts', output_mode: 'files_with_matches' }, executor);
    expect(byName.data.files).toEqual(['a.ts', 'src/b.ts', 'src/deep/d.ts']);
    const byPath = await grepIn({ pattern: 'hit', glob: 'src/*.{ts,js}', output_mode: 'files_with_matches' }, executor);
    expect(byPath.data.files).toEqual(['src/b.ts', 'src/c.js']);
    const relative = await grepIn(
      { pattern: 'hit', path: 'src', glob: 'deep/*.ts', output_mode: 'files_with_matches' },
      executor,
    );
    expect(relative.data.files).toEqual(['src/deep/d.ts']);
  });

  it('treats fixed_strings as literal text', async () => {
    await files({ 'a.txt': 'a.b\naxb\n(x)\n' });
    expect((await grepIn({ pattern: 'a.b', fixed_strings: true }, executor)).data.count).toBe(1);
    expect((await grepIn({ pattern: 'a.b' }, executor)).data.count).toBe(2);
    expect((await grepIn({ pattern: '(x)', fixed_strings: true }, executor)).data.count).toBe(1);
  });

  it('returns success with an empty result when nothing matches', async () => {
    await files({ 'a.txt': 'abc\n' });
    const envelope = await grepIn({ pattern: 'zzz' }, executor);
    expect(envelope.status).toBe('success');
    expect(envelope.data).toMatchObject({ matches: [], count: 0, truncated: false });
  });

  it('decodes invalid UTF-8 leniently, as ReadFile does', async () => {
    await files({ 'a.txt': Buffer.from('caf\xe9 needle\nplain\n', 'latin1') });
    expect((await grepIn({ pattern: 'needle' }, executor)).data.matches).toEqual([
      { file: 'a.txt', line: 1, text: 'caf\uFFFD needle' },
    ]);
  });

  it('reports an entry limit cut as partial with scan_limit', async () => {
    await files(Object.fromEntries(Array.from({ length: 10 }, (_, index) => [`f${index}.txt`, 'hit\n'])));
    const envelope = await grepIn({ pattern: 'hit' }, createGrepExecutor({ engine, maxEntries: 4 }));
    expect(envelope.status).toBe('partial');
    expect(envelope.data).toMatchObject({ count: 4, files_searched: 4, truncation_reasons: ['scan_limit'] });
  });

  it('stops when the activity is cancelled', async () => {
    await files({ 'a.txt': 'hit\n' });
    const controller = new AbortController();
    controller.abort(new Error('cancelled by test'));
    const context = makeExecutorContext({ root, input: { pattern: 'hit' }, signal: controller.signal });
    await expect(executor(context)).rejects.toThrow('cancelled by test');
  });

  it('reports a timeout as partial', async () => {
    await files({ 'a.txt': 'hit\n' });
    const envelope = await grepIn({ pattern: 'hit' }, createGrepExecutor({ engine, timeoutMs: 0 }));
    expect(envelope.status).toBe('partial');
    expect(envelope.data.truncation_reasons).toContain('timeout');
  });
});

describe('Grep engine selection', () => {
  it('uses ripgrep when it is installed', async (context) => {
    await requireRipgrep(context);
    await files({ 'a.txt': 'hit\n' });
    const envelope = await grepIn({ pattern: 'hit' });
    expect(envelope.data.engine).toBe('rg');
    expect(envelope.data).not.toHaveProperty('fallback_reason');
  });

  it('falls back to JavaScript with rg_not_found when DURABLE_AGENT_RG_PATH names nothing', async () => {
    await files({ 'a.txt': 'hit\n' });
    const envelope = await withEnvironment(RG_PATH_VARIABLE, path.join(outside, 'no-rg'), () =>
      grepIn({ pattern: 'hit' }),
    );
    expect(envelope.data).toMatchObject({ engine: 'js', fallback_reason: 'rg_not_found', count: 1 });
    expect(envelope.status).toBe('success');
  });

  it('falls back to JavaScript with rg_not_found when no rg is on PATH', async () => {
    await files({ 'a.txt': 'hit\n' });
    const search = () => withEnvironment('PATH', outside, () => grepIn({ pattern: 'hit' }));
    const envelope = await withEnvironment(RG_PATH_VARIABLE, '', search);
    expect(envelope.data).toMatchObject({ engine: 'js', fallback_reason: 'rg_not_found', count: 1 });
    expect(envelope.status).toBe('success');
  });

  it('falls back with rg_unsupported_pattern for lookaround and backreferences', async (context) => {
    await requireRipgrep(context);
    await files({ 'a.txt': 'const value = 1;\naa\n' });
    const lookbehind = await grepIn({ pattern: '(?<=const )\\w+' });
    expect(lookbehind.data).toMatchObject({ engine: 'js', fallback_reason: 'rg_unsupported_pattern', count: 1 });
    const backreference = await grepIn({ pattern: '(a)\\1' });
    expect(backreference.data).toMatchObject({ engine: 'js', fallback_reason: 'rg_unsupported_pattern', count: 1 });
  });

  it('falls back with rg_failed when ripgrep exits with 2', async () => {
    await files({ 'a.txt': 'hit\n' });
    const fake = path.join(outside, 'rg');
    await writeFile(fake, '#!/bin/sh\necho "rg: something broke" >&2\nexit 2\n');
    await chmod(fake, 0o755);
    const envelope = await withEnvironment(RG_PATH_VARIABLE, fake, () => grepIn({ pattern: 'hit' }));
    expect(envelope.data).toMatchObject({ engine: 'js', fallback_reason: 'rg_failed', count: 1 });
  });

  it('throws instead of falling back when ripgrep is forced', async (context) => {
    await requireRipgrep(context);
    await files({ 'a.txt': 'hit\n' });
    await expect(grepIn({ pattern: '(?<=h)it' }, createGrepExecutor({ engine: 'rg' }))).rejects.toThrow(
      /rg_unsupported_pattern/,
    );
  });
});

describe('Grep errors', () => {
  it('reports an invalid regex as INVALID_PARAM invalid_regex', async () => {
    for (const pattern of ['a(b', '[z-a]', 'a{2,1}', '\\p{NoSuchProperty}', '\\-']) {
      const envelope = await grepIn({ pattern });
      expect(envelope.error, pattern).toMatchObject({ code: 'INVALID_PARAM', details: { reason: 'invalid_regex' } });
      expect(envelope.text).toContain('fixed_strings=true');
    }
  });

  it('rejects a glob with a leading / or a .. segment', async () => {
    for (const glob of ['/src/*.ts', '../*.ts']) {
      const envelope = await grepIn({ pattern: 'x', glob });
      expect(envelope.error).toMatchObject({ code: 'INVALID_PARAM', details: { reason: 'invalid_glob' } });
    }
  });

  it('reports a missing path as NOT_FOUND', async () => {
    expect((await grepIn({ pattern: 'x', path: 'missing.txt' })).error?.code).toBe('NOT_FOUND');
  });

  it('refuses paths outside the workspace with ACCESS_DENIED', async () => {
    await writeFile(path.join(outside, 'secret.txt'), 'needle\n');
    await symlink(path.join(outside, 'secret.txt'), path.join(root, 'escape.txt'));
    for (const target of ['../', path.join(outside, 'secret.txt'), 'escape.txt']) {
      expect((await grepIn({ pattern: 'needle', path: target })).error?.code, target).toBe('ACCESS_DENIED');
    }
  });

  it('reports an explicitly named binary file as BINARY_FILE', async () => {
    await files({ 'a.bin': Buffer.from([0x6e, 0x00, 0x01]) });
    expect((await grepIn({ pattern: 'n', path: 'a.bin' })).error?.code).toBe('BINARY_FILE');
  });

  it('reports a FIFO as INVALID_PARAM not_regular_file', async () => {
    await execa('mkfifo', [path.join(root, 'pipe')]);
    expect((await grepIn({ pattern: 'x', path: 'pipe' })).error).toMatchObject({
      code: 'INVALID_PARAM',
      details: { reason: 'not_regular_file' },
    });
  });
});
