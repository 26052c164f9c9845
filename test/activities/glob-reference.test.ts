// Glob against tinyglobby, the reference implementation (docs/tools.md §11.4 matching and traversal rules), on a copy
// of this repository's source tree plus crafted hidden, ignored and symlinked entries.
import { glob as referenceGlob } from 'tinyglobby';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { executeGlob } from '../../src/activities/executors/glob.js';
import { IGNORED_DIRECTORY_NAMES } from '../../src/activities/search/ignore-rules.js';
import { makeExecutorContext } from './executor-context.js';
import { FIXTURE_GITIGNORE_GLOBS, createSearchWorkspace, removeSearchWorkspace } from './search/fixture.js';

interface GlobCase {
  pattern: string;
  path?: string;
  include_hidden?: boolean;
  include_ignored?: boolean;
}

const cases: GlobCase[] = [
  { pattern: '**/*.ts' },
  { pattern: '*' },
  { pattern: '**' },
  { pattern: '**/*' },
  { pattern: 'src/*.ts' },
  { pattern: 'src/**/*.ts' },
  { pattern: 'src/**' },
  { pattern: '**/index.ts' },
  { pattern: '**/executors/*.ts' },
  { pattern: 'src/*/*.ts' },
  { pattern: 'src/**/read-*.ts' },
  { pattern: '**/*-*.ts' },
  { pattern: '**/?????.ts' },
  { pattern: '**/[a-c]*.ts' },
  { pattern: '**/[!a-m]*.ts' },
  { pattern: '**/*.{ts,js,md}' },
  { pattern: '{src,data}/**/*.txt' },
  { pattern: 'data/*.txt' },
  { pattern: 'data/**' },
  { pattern: 'data/special \\[x\\].txt' },
  { pattern: 'data/a?b.ts' },
  { pattern: 'data/a/*.ts' },
  { pattern: '**/*.TS' },
  { pattern: '**/upper.ts' },
  { pattern: '**/build' },
  { pattern: '**/*.log' },
  { pattern: 'src/protocol/envelope.ts' },
  { pattern: 'src/core/*.ts', path: '.' },
  { pattern: '*.ts', path: 'src/core' },
  { pattern: '**/*.ts', path: 'src/activities' },
  { pattern: '**', path: 'data' },
  { pattern: '**/*', include_hidden: true },
  { pattern: '**/*.ts', include_hidden: true },
  { pattern: '**/*', include_ignored: true },
  { pattern: '**/*.js', include_ignored: true },
  { pattern: '**/*', include_hidden: true, include_ignored: true },
  { pattern: '*', include_hidden: true, include_ignored: true },
  { pattern: 'src/**/*.ts', include_ignored: true },
  { pattern: '**/+(index|types).ts' },
  { pattern: '**/*.{ts,js}', path: 'data' },
];

async function reference(root: string, input: GlobCase): Promise<string[]> {
  const base = input.path === undefined || input.path === '.' ? '' : `${input.path}/`;
  const ignore = input.include_ignored
    ? []
    : [...[...IGNORED_DIRECTORY_NAMES].map((name) => `**/${name}/**/*`), ...FIXTURE_GITIGNORE_GLOBS];
  const found = await referenceGlob([`${base}${input.pattern}`], {
    cwd: root,
    dot: input.include_hidden === true,
    ignore,
    onlyFiles: true,
    followSymbolicLinks: false,
    expandDirectories: false,
    caseSensitiveMatch: true,
  });
  // picomatch lets a class such as [!a-m] match a leading "." even with dot:false; §11 skips hidden names outright.
  const visible = input.include_hidden
    ? found
    : found.filter((file) => !file.split('/').some((name) => name.startsWith('.')));
  return visible.sort();
}

describe('Glob agrees with tinyglobby', () => {
  let root: string;
  beforeAll(async () => {
    root = await createSearchWorkspace();
  });
  afterAll(async () => {
    await removeSearchWorkspace(root);
  });

  it.each(cases.map((input) => [JSON.stringify(input), input] as const))('%s', async (_label, input) => {
    const result = await executeGlob(makeExecutorContext({ root, input: { ...input, limit: 1000 } }));
    expect(result.envelope.status).toBe('success');
    const expected = await reference(root, input);
    expect(result.envelope.data.paths).toEqual(expected);
    expect(result.envelope.data.total_matched).toBe(expected.length);
  });

  it('compares real results, not empty ones', async () => {
    let withMatches = 0;
    for (const input of cases) {
      if ((await reference(root, input)).length > 0) withMatches++;
    }
    expect(cases.length).toBeGreaterThanOrEqual(30);
    expect(withMatches).toBeGreaterThanOrEqual(cases.length - 3);
  });
});
