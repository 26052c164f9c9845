// The JavaScript → ripgrep pattern translation (docs/tools.md §11 engines): checked on its own, without the engine's
// re-test of reported lines, so a translation that is merely "close" shows up here.
import { execa } from 'execa';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileSearchRegex, escapeRegExp, toRustRegex } from '../../../src/activities/search/grep-regex.js';
import { locateRipgrep } from '../../../src/activities/search/grep-rg.js';
import { requireRipgrep } from '../../support/optional-tools.js';

const trickyLines = [
  'plain ascii line',
  'digits 0123456789 and ٣٤٥ (arabic-indic)',
  'word_chars éa ſ \u212A K k',
  'spaces\u00A0nbsp \u2003em \uFEFFbom \u3000ideographic',
  'separator\u2028inside',
  'control \u0007 bell \u001B esc \u0008 backspace',
  'tab\tseparated\tvalues',
  'mid\rcarriage return',
  'emoji 😀 and 😃 astral',
  'brackets [a] {b} (c) <d>',
  'symbols # & ~ - ^ $ . * + ? | \\ /',
  'Greek ΑΒΓ αβγ Cyrillic Жж',
  'foo',
  'FOO bar',
  '',
  'trailing space ',
  'x=1; y=22; z=333',
];

const patterns = [
  '\\d+',
  '\\D\\d',
  '\\w+',
  '\\W',
  '\\s',
  '\\S+$',
  '\\bk\\b',
  '\\Bor',
  '.',
  '^.{5}$',
  '^$',
  ' $',
  '[\\s\\d]',
  '[^\\w\\s]',
  '[\\D]',
  '[^]',
  '[a-c]\\]',
  '[[\\]]',
  '[-a]',
  '[\\-x]',
  '\\[a\\]',
  '\\{b\\}',
  '\\(c\\)',
  '#|&|~',
  '\\$ \\.',
  '\\\\ \\/',
  '\\x41|\\u0062|\\u{1F600}',
  '\\uD83D\\uDE03',
  '\\cG|\\t',
  '\\0|\\x00',
  '\\p{Script=Greek}+',
  '\\p{Lu}',
  '[\\p{Ll}&&]',
  '(?:foo|bar)+',
  '(?<name>y)=',
  'a{2}|z{1,}|\\d{2,3}',
  '\\r',
  '[\\b]',
  'ſ',
  'é',
  'K',
];

describe('toRustRegex', () => {
  let directory: string;
  let file: string;
  let rgPath: string | undefined;
  beforeAll(async () => {
    directory = await mkdtemp(path.join(os.tmpdir(), 'grep-regex-'));
    file = path.join(directory, 'lines.txt');
    await writeFile(file, trickyLines.join('\n') + '\n');
    rgPath = await locateRipgrep();
  });
  afterAll(async () => {
    await rm(directory, { recursive: true, force: true });
  });

  const linesMatchedByRipgrep = async (source: string, caseSensitive: boolean): Promise<number[]> => {
    const result = await execa(
      rgPath!,
      [
        '--no-config',
        '--text',
        '--line-number',
        '--no-filename',
        caseSensitive ? '-s' : '-i',
        '-e',
        source,
        '--',
        file,
      ],
      { reject: false },
    );
    expect(result.exitCode, String(result.stderr)).toBeLessThan(2);
    return String(result.stdout)
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => Number(line.slice(0, line.indexOf(':'))));
  };

  it.for(patterns.flatMap((pattern) => [[pattern, true] as const, [pattern, false] as const]))(
    'matches the same lines as JavaScript: %s (case-sensitive %s)',
    async ([pattern, caseSensitive], context) => {
      await requireRipgrep(context);
      const compiled = compileSearchRegex(pattern, { caseSensitive, fixedStrings: false });
      if (!compiled.ok) throw new Error(compiled.message);
      const translated = toRustRegex(compiled.source);
      if (!translated.ok) throw new Error(translated.reason);
      const expected = trickyLines.flatMap((line, index) => (compiled.regex.test(line) ? [index + 1] : []));
      expect(await linesMatchedByRipgrep(translated.source, caseSensitive)).toEqual(expected);
    },
  );

  it('refuses what ripgrep cannot express', () => {
    for (const pattern of [
      '(?<=a)b',
      '(?<!a)b',
      'a(?=b)',
      'a(?!b)',
      '(a)\\1',
      '(?<x>a)\\k<x>',
      '[]',
      'a\\nb',
      '\\uD83D',
    ]) {
      expect(compileSearchRegex(pattern, { caseSensitive: true, fixedStrings: false }).ok).toBe(true);
      expect(toRustRegex(pattern).ok, pattern).toBe(false);
    }
  });

  it('translates the JavaScript-specific classes explicitly', () => {
    expect(toRustRegex('\\d\\w.$')).toEqual({
      ok: true,
      source: '[0-9][0-9A-Za-z_][^\\n\\r\\x{2028}\\x{2029}](?:\\r?$)',
    });
    expect(toRustRegex('\\bx\\B')).toEqual({ ok: true, source: '(?-u:\\b)x(?-u:\\B)' });
    expect(toRustRegex('a#b&c~d-e')).toEqual({ ok: true, source: 'a\\#b\\&c\\~d\\-e' });
  });

  it('escapes fixed strings for a u-flag RegExp', () => {
    const text = 'a.b*c+d?e(f)g[h]i{j}k|l^m$n\\o/p-q';
    const regex = new RegExp(escapeRegExp(text), 'u');
    expect(regex.test(`xx${text}yy`)).toBe(true);
    expect(regex.test(text.replace('.', '!'))).toBe(false);
  });

  it('rejects invalid patterns with the RegExp message', () => {
    const result = compileSearchRegex('a(b', { caseSensitive: false, fixedStrings: false });
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.message).toBe('Unterminated group');
    expect(compileSearchRegex('a(b', { caseSensitive: false, fixedStrings: true }).ok).toBe(true);
  });
});
