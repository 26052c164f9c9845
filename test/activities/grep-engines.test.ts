// Differential test of Grep's two engines (docs/tools.md §11.5: both MUST return identical results on patterns valid in
// both), over a copy of this repository's source tree plus crafted files. Needs ripgrep: skipped without it, except
// in CI, which installs it.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createGrepExecutor } from '../../src/activities/executors/grep.js';
import { locateRipgrep } from '../../src/activities/search/grep-rg.js';
import { requireRipgrep } from '../support/optional-tools.js';
import { makeExecutorContext } from './executor-context.js';
import { createSearchWorkspace, removeSearchWorkspace } from './search/fixture.js';

const withRipgrep = createGrepExecutor({ engine: 'rg' });
const withJavaScript = createGrepExecutor({ engine: 'js' });

const cases: Record<string, unknown>[] = [
  { pattern: 'import' },
  { pattern: 'export function', case_sensitive: true },
  { pattern: 'EXPORT FUNCTION' },
  { pattern: '^import .* from', limit: 1000 },
  { pattern: ';$', limit: 1000 },
  { pattern: '\\bconst\\b', limit: 50 },
  { pattern: '\\d{3,}', limit: 1000 },
  { pattern: '[A-Z][a-z]+Error', case_sensitive: true },
  { pattern: 'TODO|FIXME|XXX', case_sensitive: true },
  { pattern: '\\s+$', limit: 1000 },
  { pattern: '^\\s*$', output_mode: 'count', limit: 1000 },
  { pattern: 'async function \\w+\\(', context: 2 },
  { pattern: 'return', context: 3, limit: 40 },
  { pattern: 'a.b', fixed_strings: true },
  { pattern: '(paren)', fixed_strings: true },
  { pattern: '$1', fixed_strings: true },
  { pattern: 'interface', output_mode: 'files_with_matches', limit: 1000 },
  { pattern: 'interface', output_mode: 'files_with_matches', limit: 5 },
  { pattern: 'Envelope', output_mode: 'count', limit: 1000 },
  { pattern: 'Envelope', output_mode: 'count', limit: 3 },
  { pattern: 'zod', glob: '*.ts' },
  { pattern: 'export', glob: 'src/tools/*.ts', limit: 1000 },
  { pattern: 'export', glob: '**/executors/*.{ts,js}', output_mode: 'files_with_matches' },
  { pattern: 'type', path: 'src/core', context: 1 },
  { pattern: 'STRASSE|s', path: 'data/unicode.txt' },
  { pattern: 'K', path: 'data/unicode.txt' },
  { pattern: '\\p{Lu}\\p{Ll}+', case_sensitive: true, limit: 200 },
  { pattern: '[^\\x00-\\x7F]', limit: 1000 },
  { pattern: 'É', limit: 1000 },
  { pattern: '\\u{1F600}' },
  { pattern: '.{120,}', limit: 1000 },
  { pattern: 'needle', limit: 1, context: 2 },
  { pattern: 'needle', context: 10, limit: 7 },
  { pattern: 'needle', path: 'data/many.txt', context: 1, limit: 50 },
  { pattern: 'needle', limit: 1000, output_mode: 'count' },
  { pattern: 'foo$', path: 'data/crlf.txt' },
  { pattern: '^$', path: 'data', limit: 1000 },
  { pattern: '\\w+\\.\\w+\\(', limit: 1000 },
  { pattern: '^\\}$', context: 1, limit: 200 },
  { pattern: '[[]', limit: 20 },
  { pattern: '\\S\\s\\S', path: 'data', limit: 1000 },
  { pattern: 'x{2}|y{2,3}', limit: 1000 },
  { pattern: '\\d', path: 'data/unicode.txt' },
  { pattern: '\\w+', path: 'data/unicode.txt' },
  { pattern: '\\bK', path: 'data/unicode.txt' },
  { pattern: '.', path: 'data/unicode.txt' },
  { pattern: 'a\\b', path: 'data/unicode.txt' },
  { pattern: '\\s', path: 'data/unicode.txt' },
  { pattern: '(?<word>ne+dle) \\d+$', path: 'data/many.txt', limit: 3 },
  { pattern: '\\r|\\t', path: 'data', limit: 100 },
  { pattern: 'needle', path: 'data/long.txt', context: 1 },
  { pattern: 'after|tail', path: 'data' },
  { pattern: '^foo', path: 'data/bom.txt' },
  { pattern: 'needle', glob: '*.txt', output_mode: 'files_with_matches', limit: 1000 },
];

describe('Grep engines agree (ripgrep vs JavaScript)', () => {
  let root: string;
  beforeAll(async () => {
    root = await createSearchWorkspace();
  });
  afterAll(async () => {
    await removeSearchWorkspace(root);
  });
  beforeEach(async (context) => {
    await requireRipgrep(context);
  });

  it('has ripgrep installed (set DURABLE_AGENT_RG_PATH or install the ripgrep package)', async () => {
    expect(await locateRipgrep(), 'ripgrep is required for the differential test').toBeDefined();
  });

  it.each(cases.map((input) => [JSON.stringify(input), input] as const))('%s', async (_label, input) => {
    const fromRipgrep = await withRipgrep(makeExecutorContext({ root, input }));
    const fromJavaScript = await withJavaScript(makeExecutorContext({ root, input }));
    expect(fromRipgrep.envelope.status).not.toBe('error');
    const { engine: rgEngine, ...rgData } = fromRipgrep.envelope.data;
    const { engine: jsEngine, ...jsData } = fromJavaScript.envelope.data;
    expect(rgEngine).toBe('rg');
    expect(jsEngine).toBe('js');
    expect(rgData).toEqual(jsData);
    expect(fromRipgrep.envelope.status).toBe(fromJavaScript.envelope.status);
    expect(fromRipgrep.envelope.text).toBe(fromJavaScript.envelope.text);
  });

  it('compares real results, not empty ones', async () => {
    let withMatches = 0;
    for (const input of cases) {
      const result = await withJavaScript(makeExecutorContext({ root, input }));
      if ((result.envelope.data.count as number) > 0) withMatches++;
    }
    expect(cases.length).toBeGreaterThanOrEqual(30);
    expect(withMatches).toBeGreaterThanOrEqual(cases.length - 2);
  });
});
