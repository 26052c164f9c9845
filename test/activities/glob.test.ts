// Glob executor behaviour (docs/tools.md §11.4 Glob): matching, traversal filters, limits, ordering and every error
// code.
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createGlobExecutor, executeGlob } from '../../src/activities/executors/glob.js';
import { makeExecutorContext } from './executor-context.js';

let root: string;
let outside: string;

async function files(entries: Record<string, string>): Promise<void> {
  for (const [relative, content] of Object.entries(entries)) {
    await mkdir(path.dirname(path.join(root, relative)), { recursive: true });
    await writeFile(path.join(root, relative), content);
  }
}

async function globIn(input: Record<string, unknown>, executor = executeGlob) {
  return (await executor(makeExecutorContext({ root, input }))).envelope;
}

beforeEach(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), 'glob-'));
  outside = await mkdtemp(path.join(os.tmpdir(), 'glob-outside-'));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
  await rm(outside, { recursive: true, force: true });
});

describe('Glob matching', () => {
  it('keeps * and ? within one segment and lets ** span zero or more directories', async () => {
    await files({ 'a.ts': '', 'src/b.ts': '', 'src/deep/c.ts': '', 'src/ab.ts': '' });
    expect((await globIn({ pattern: '*.ts' })).data.paths).toEqual(['a.ts']);
    expect((await globIn({ pattern: 'src/?.ts' })).data.paths).toEqual(['src/b.ts']);
    expect((await globIn({ pattern: 'src/**/*.ts' })).data.paths).toEqual(['src/ab.ts', 'src/b.ts', 'src/deep/c.ts']);
    expect((await globIn({ pattern: '**/c.ts' })).data.paths).toEqual(['src/deep/c.ts']);
  });

  it('supports classes, negated classes and braces, case-sensitively', async () => {
    await files({ 'a.ts': '', 'b.ts': '', 'c.js': '', 'A.ts': '', 'd.md': '' });
    expect((await globIn({ pattern: '[ab].ts' })).data.paths).toEqual(['a.ts', 'b.ts']);
    expect((await globIn({ pattern: '[!ab].ts' })).data.paths).toEqual(['A.ts']);
    expect((await globIn({ pattern: '*.{js,md}' })).data.paths).toEqual(['c.js', 'd.md']);
    expect((await globIn({ pattern: 'a.TS' })).data.paths).toEqual([]);
  });

  it('orders paths by UTF-16 code units of the workspace-relative path', async () => {
    await files({ 'a/b.ts': '', 'a-c.ts': '', 'B.ts': '', 'a.ts': '', 'é.ts': '', 'z.ts': '' });
    expect((await globIn({ pattern: '**/*.ts' })).data.paths).toEqual([
      'B.ts',
      'a-c.ts',
      'a.ts',
      'a/b.ts',
      'z.ts',
      'é.ts',
    ]);
  });

  it('takes the pattern relative to path and returns workspace-relative paths', async () => {
    await files({ 'src/core/x.ts': '', 'src/y.ts': '' });
    const envelope = await globIn({ pattern: '*.ts', path: 'src/core' });
    expect(envelope.data.paths).toEqual(['src/core/x.ts']);
    expect(envelope.context.path_resolved).toBe('src/core');
    expect(envelope.text).toBe("Found 1 file(s) matching '*.ts' in 'src/core'.");
  });

  it('accepts a leading ./ in the pattern', async () => {
    await files({ 'src/a.ts': '' });
    expect((await globIn({ pattern: './src/*.ts' })).data.paths).toEqual(['src/a.ts']);
  });
});

describe('Glob traversal', () => {
  it('skips hidden names unless include_hidden, and hints when the pattern names one', async () => {
    await files({ '.env.ts': '', '.github/ci.yml': '', 'src/.cache/x.ts': '', 'src/a.ts': '' });
    expect((await globIn({ pattern: '**/*' })).data.paths).toEqual(['src/a.ts']);
    const hidden = await globIn({ pattern: '.github/*.yml' });
    expect(hidden.data.paths).toEqual([]);
    expect(hidden.text).toContain('include_hidden=true');
    expect((await globIn({ pattern: '**/*', include_hidden: true })).data.paths).toEqual([
      '.env.ts',
      '.github/ci.yml',
      'src/.cache/x.ts',
      'src/a.ts',
    ]);
  });

  it('skips the ignore-name directories and the root .gitignore unless include_ignored', async () => {
    await files({
      '.gitignore': '*.log\n/generated/\n!keep.log\n',
      'node_modules/p/i.js': '',
      'src/dist/x.js': '',
      'src/__pycache__/m.pyc': '',
      'generated/g.ts': '',
      'src/generated/kept.ts': '',
      'debug.log': '',
      'keep.log': '',
      'docs/build': 'a file, not a directory',
      'src/a.ts': '',
    });
    expect((await globIn({ pattern: '**/*' })).data.paths).toEqual([
      'docs/build',
      'keep.log',
      'src/a.ts',
      'src/generated/kept.ts',
    ]);
    expect((await globIn({ pattern: '**/*', include_ignored: true })).data.paths).toEqual([
      'debug.log',
      'docs/build',
      'generated/g.ts',
      'keep.log',
      'node_modules/p/i.js',
      'src/__pycache__/m.pyc',
      'src/a.ts',
      'src/dist/x.js',
      'src/generated/kept.ts',
    ]);
  });

  it('searches a directory named explicitly even when it is ignored or hidden', async () => {
    await files({
      '.gitignore': 'generated/\n*.tmp\n',
      'generated/a.ts': '',
      'generated/b.tmp': '',
      'node_modules/p/i.js': '',
    });
    expect((await globIn({ pattern: '**/*', path: 'generated' })).data.paths).toEqual([
      'generated/a.ts',
      'generated/b.tmp',
    ]);
    expect((await globIn({ pattern: '**/*.js', path: 'node_modules' })).data.paths).toEqual(['node_modules/p/i.js']);
    await files({ '.github/ci.yml': '', '.github/.inner/x.yml': '' });
    expect((await globIn({ pattern: '**/*.yml', path: '.github' })).data.paths).toEqual(['.github/ci.yml']);
  });

  it('neither follows nor lists symlinks', async () => {
    await files({ 'real/a.ts': '' });
    await writeFile(path.join(outside, 'secret.ts'), '');
    await symlink(path.join(root, 'real/a.ts'), path.join(root, 'link.ts'));
    await symlink(path.join(root, 'real'), path.join(root, 'linkdir'));
    await symlink(outside, path.join(root, 'escape'));
    expect((await globIn({ pattern: '**/*.ts', include_hidden: true, include_ignored: true })).data.paths).toEqual([
      'real/a.ts',
    ]);
  });

  it('caps the paths at limit and reports the total', async () => {
    await files(
      Object.fromEntries(Array.from({ length: 12 }, (_, index) => [`f${String(index).padStart(2, '0')}.ts`, ''])),
    );
    const envelope = await globIn({ pattern: '*.ts', limit: 5 });
    expect(envelope.status).toBe('partial');
    expect(envelope.data).toEqual({
      paths: ['f00.ts', 'f01.ts', 'f02.ts', 'f03.ts', 'f04.ts'],
      count: 5,
      total_matched: 12,
      truncated: true,
      truncation_reasons: ['match_limit'],
    });
    expect(envelope.stats.files_visited).toBe(12);
  });

  it('stops after the entry limit with scan_limit', async () => {
    await files(Object.fromEntries(Array.from({ length: 30 }, (_, index) => [`d${index % 3}/f${index}.ts`, ''])));
    const envelope = await globIn({ pattern: '**/*.ts' }, createGlobExecutor({ maxEntries: 10 }));
    expect(envelope.status).toBe('partial');
    expect(envelope.data.truncation_reasons).toEqual(['scan_limit']);
    expect((envelope.data.paths as string[]).length).toBeLessThan(30);
    // Name-ordered traversal makes the cut deterministic.
    const again = await globIn({ pattern: '**/*.ts' }, createGlobExecutor({ maxEntries: 10 }));
    expect(again.data.paths).toEqual(envelope.data.paths);
  });

  it('stops at the deadline with timeout', async () => {
    await files({ 'a/b.ts': '', 'c.ts': '' });
    const envelope = await globIn({ pattern: '**/*.ts' }, createGlobExecutor({ timeoutMs: 0 }));
    expect(envelope.status).toBe('partial');
    expect(envelope.data.truncation_reasons).toEqual(['timeout']);
  });
});

describe('Glob errors', () => {
  it('rejects a leading / and a .. segment with INVALID_PARAM', async () => {
    for (const pattern of ['/etc/*', '../*.ts', 'src/../../x', '**/..']) {
      const envelope = await globIn({ pattern });
      expect(envelope.status).toBe('error');
      expect(envelope.error).toMatchObject({ code: 'INVALID_PARAM', details: { reason: 'invalid_pattern' } });
      expect(envelope.error?.message).toBe(envelope.text);
    }
  });

  it('reports a missing path as NOT_FOUND', async () => {
    const envelope = await globIn({ pattern: '*', path: 'missing' });
    expect(envelope.error?.code).toBe('NOT_FOUND');
    expect(envelope.context.path_resolved).toBe('missing');
  });

  it('reports a file path as INVALID_PARAM not_a_directory', async () => {
    await files({ 'a.ts': '' });
    const envelope = await globIn({ pattern: '*', path: 'a.ts' });
    expect(envelope.error).toMatchObject({ code: 'INVALID_PARAM', details: { reason: 'not_a_directory' } });
  });

  it('refuses paths outside the workspace with ACCESS_DENIED', async () => {
    await symlink(outside, path.join(root, 'escape'));
    for (const target of ['..', outside, 'escape', '~/']) {
      const envelope = await globIn({ pattern: '*', path: target });
      expect(envelope.error?.code, target).toBe('ACCESS_DENIED');
    }
  });

  it('reports schema violations as INVALID_PARAM', async () => {
    const envelope = await globIn({ pattern: '*', limit: 0 });
    expect(envelope.error?.code).toBe('INVALID_PARAM');
  });
});
