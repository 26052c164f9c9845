// Where ripgrep and the JavaScript engine read a line differently (docs/tools.md §11 engines): invalid UTF-8, a BOM,
// a UTF-16 BOM, and the word characters `iu` adds. The engine's re-test drops lines ripgrep reports wrongly, so what
// must hold is that ripgrep, run as the engine runs it, reports every line JavaScript matches.
import { execa } from 'execa';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGrepExecutor } from '../../../src/activities/executors/grep.js';
import { compileSearchRegex, toRustRegex } from '../../../src/activities/search/grep-regex.js';
import { decodeUtf8Lenient, splitLines } from '../../../src/activities/files/text.js';
import { requireRipgrep } from '../../support/optional-tools.js';
import { makeExecutorContext } from '../executor-context.js';

// Latin-1 strings below stand for raw bytes.
const files: Record<string, Buffer> = {
  // 0xFF is never valid; E2 82 is a truncated "€"; ED A0 80 an encoded surrogate; C0 AF an overlong "/".
  'invalid.txt': Buffer.from('plain\na\xFFb\nx\xE2\x82y\nsurrogate \xED\xA0\x80\n\xC0\xAFslash\n', 'latin1'),
  // A BOM, then a line that starts with U+FEFF and holds invalid UTF-8 (ripgrep sends it as bytes).
  'bom.txt': Buffer.from('\xEF\xBB\xBFfoo\n\xEF\xBB\xBFbar\xFF\n', 'latin1'),
  // No NUL and few control bytes, so it is text to Grep; JavaScript reads it as UTF-8, never as UTF-16.
  'utf16.txt': Buffer.from('\uFEFF日本語のテキスト', 'utf16le'),
  'folding.txt': Buffer.from('\u212Aelvin\n\u017Fo\nkelvin\nask\u017F\n', 'utf8'),
};

describe('ripgrep reports every line the JavaScript engine matches', () => {
  let root: string;
  beforeAll(async () => {
    root = await mkdtemp(path.join(os.tmpdir(), 'rg-translation-'));
    for (const [name, content] of Object.entries(files)) await writeFile(path.join(root, name), content);
  });
  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  // Each of these lost a line with ripgrep before: the first three on invalid UTF-8 (JavaScript sees U+FFFD there),
  // the UTF-16 one because ripgrep transcoded the file, the U+FEFF one because its decoding dropped the U+FEFF, the
  // last three because `iu` makes K (Kelvin) and ſ word characters.
  it.for([
    ['a.b', true],
    ['x[^z]y', true],
    ['^\\W+slash$', true],
    ['\\uFFFD', true],
    ['^\\sbar', true],
    ['\\bk', false],
    ['k\\B', false],
    ['\\bs', false],
  ] as const)(
    '%s (case-sensitive %s): both engines give the same result',
    async ([pattern, caseSensitive], context) => {
      const rgPath = await requireRipgrep(context);
      const withRipgrep = createGrepExecutor({ engine: 'rg', rgPath });
      const withJavaScript = createGrepExecutor({ engine: 'js' });
      for (const output_mode of ['content', 'count', 'files_with_matches']) {
        const input = { pattern, case_sensitive: caseSensitive, output_mode, limit: 1000 };
        const fromRipgrep = await withRipgrep(makeExecutorContext({ root, input }));
        const fromJavaScript = await withJavaScript(makeExecutorContext({ root, input }));
        const { engine: rgEngine, ...rgData } = fromRipgrep.envelope.data;
        const { engine: jsEngine, ...jsData } = fromJavaScript.envelope.data;
        expect([rgEngine, jsEngine]).toEqual(['rg', 'js']);
        expect(jsData.count, 'the JavaScript engine finds something').toBeGreaterThan(0);
        expect(rgData).toEqual(jsData);
      }
    },
  );

  const patterns = [
    '.',
    '^.$',
    '[^a]',
    '\\W',
    '\\S+',
    '\\D',
    '\\P{L}',
    '[\\u{FFF0}-\\u{FFFF}]',
    '^',
    '^\\S',
    '\\bk',
    '\\Bo',
    'o\\b',
    '\\w+$',
    'b',
  ];

  it.for(patterns.flatMap((pattern) => [[pattern, true] as const, [pattern, false] as const]))(
    'ripgrep with the engine translation reports a superset: %s (case-sensitive %s)',
    async ([pattern, caseSensitive], context) => {
      const rgPath = await requireRipgrep(context);
      const compiled = compileSearchRegex(pattern, { caseSensitive, fixedStrings: false });
      if (!compiled.ok) throw new Error(compiled.message);
      const translated = toRustRegex(compiled.source, { ignoreCase: !caseSensitive, rawBytes: true });
      if (!translated.ok) throw new Error(translated.reason);
      for (const [name, content] of Object.entries(files)) {
        const lines = splitLines(decodeUtf8Lenient(content).text);
        const expected = lines.flatMap((line, index) => (compiled.regex.test(line) ? [index + 1] : []));
        const reported = await ripgrepLines(rgPath, translated.source, caseSensitive, path.join(root, name));
        expect(reported, `${name}: every line JavaScript matches`).toEqual(expect.arrayContaining(expected));
      }
    },
  );

  it('widens a translation only where the pattern needs it', () => {
    const options = { ignoreCase: true, rawBytes: true };
    // Nothing here can match U+FFFD, and a case-sensitive boundary is exact: the translation stays as it was.
    expect(toRustRegex('foo\\w+', options)).toEqual({ ok: true, source: 'foo[0-9A-Za-z_]+' });
    expect(toRustRegex('\\bfoo', { rawBytes: true })).toEqual({ ok: true, source: '(?-u:\\b)foo' });
    const dot = toRustRegex('a.b', options);
    expect(dot.ok && dot.source.startsWith('(?:a[^\\n\\r\\x{2028}\\x{2029}]b)|(?-u:')).toBe(true);
    expect(toRustRegex('\\bk', { ignoreCase: true })).toEqual({
      ok: true,
      source: '(?:(?-u:\\b)k)|(?-i:[\\x{17F}\\x{212A}])',
    });
    expect(toRustRegex('^a', { rawBytes: true })).toEqual({ ok: true, source: '^(?-u:\\xEF\\xBB\\xBF)?a' });
  });
});

async function ripgrepLines(rgPath: string, source: string, caseSensitive: boolean, file: string): Promise<number[]> {
  const result = await execa(
    rgPath,
    [
      '--no-config',
      '--text',
      '--encoding',
      'none',
      '--line-number',
      '--no-filename',
      caseSensitive ? '-s' : '-i',
      '-e',
      source,
      '--',
      file,
    ],
    { reject: false, encoding: 'latin1' },
  );
  expect(result.exitCode, String(result.stderr)).toBeLessThan(2);
  return String(result.stdout)
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => Number(line.slice(0, line.indexOf(':'))));
}
