// Text made safe for a terminal: a table of what each hostile character prints as, and properties over any string —
// nothing a terminal acts on or hides is printed raw, and every printed text reads back to exactly its original (two
// different commands never print the same). terminalJson: valid JSON of the exact value, with nothing raw either.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { terminalJson, visibleLines, visibleText } from '../../src/core/terminal-text.js';
import { assertProperty } from '../support/property.js';

/** The inverse of visibleText: a backslash run before `x`/`u` is doubled, an odd one ends in an escape. */
function readBack(shown: string): string {
  let text = '';
  let index = 0;
  while (index < shown.length) {
    if (shown[index] !== '\\') {
      text += shown[index];
      index += 1;
      continue;
    }
    let run = 0;
    while (shown[index + run] === '\\') run += 1;
    const next = shown[index + run];
    index += run;
    if (next !== 'x' && next !== 'u') {
      text += '\\'.repeat(run);
      continue;
    }
    text += '\\'.repeat(Math.floor(run / 2));
    if (run % 2 === 0) continue;
    const escape = /^(?:x([0-9a-f]{2})|u\{([0-9a-f]+)\}|u([0-9a-f]{4}))/.exec(shown.slice(index));
    if (!escape) throw new Error(`not an escape at ${index} of ${JSON.stringify(shown)}`);
    const hex = escape[1] ?? escape[2] ?? escape[3]!;
    text += hex.length === 4 ? String.fromCharCode(parseInt(hex, 16)) : String.fromCodePoint(parseInt(hex, 16));
    index += escape[0].length;
  }
  return text;
}

/** Characters a terminal acts on or hides; a ZWJ is allowed only between pictographs, tested apart. */
const RAW = /[\p{Cc}\p{Cf}\p{Cs}\p{Zl}\p{Zp}\u{E0100}-\u{E01EF}]/u;

function rawIn(shown: string, lines: boolean): string[] {
  const characters = Array.from(shown);
  return characters.filter((character, index) => {
    if (lines && (character === '\n' || character === '\t')) return false;
    if (character === '\u200d' && /\p{Extended_Pictographic}/u.test(characters[index + 1] ?? '')) return false;
    return RAW.test(character);
  });
}

const HOSTILE = [
  '\u001b',
  '\u001b[2K',
  '\u001b]52;c;cm0gLXJmIH4=\u0007',
  '\u001b]0;title\u001b\\',
  '\u001b[8m',
  '\r',
  '\b',
  '\n',
  '\t',
  '\u0000',
  '\u007f',
  '\u0085',
  '\u009b',
  '\u009d',
  '\u202e',
  '\u2066',
  '\u2069',
  '\u200b',
  '\u200d',
  '\u200e',
  '\u061c',
  '\ufeff',
  '\u2028',
  '\u00ad',
  '\ud800',
  '\udfff',
  '\u{e0041}',
  '\u{e0100}',
  '\\',
  '\\x1b',
  '\\u202e',
  'x',
  'u',
  '👩',
  '💻',
  '\ufe0f',
  'é',
  '→',
  'a',
  ' ',
];

const hostileText = fc.string({
  unit: fc.oneof(fc.constantFrom(...HOSTILE), fc.string({ unit: 'binary', minLength: 1, maxLength: 1 })),
  maxLength: 40,
});

describe('visibleText', () => {
  it.each([
    ['plain text stays as it is', 'ls -la src/', 'ls -la src/'],
    ['ESC of a screen clear', 'ls\u001b[2J', 'ls\\x1b[2J'],
    ['an OSC 52 clipboard write', '\u001b]52;c;ZWNobyBoaQ==\u0007', '\\x1b]52;c;ZWNobyBoaQ==\\x07'],
    ['a title change ended by ST', '\u001b]0;pwned\u001b\\', '\\x1b]0;pwned\\x1b\\'],
    ['CR and erase-line hiding a command', 'rm -rf ~\r\u001b[2Kls', 'rm -rf ~\\x0d\\x1b[2Kls'],
    ['backspaces', 'rm -rf ~\b\b\b\b\b\b\b\bls      ', 'rm -rf ~\\x08\\x08\\x08\\x08\\x08\\x08\\x08\\x08ls      '],
    ['newline and tab on a single line', 'a\nb\tc', 'a\\x0ab\\x09c'],
    ['DEL and C1 controls (CSI, OSC, NEL)', '\u007f\u009b2J\u009d\u0085', '\\x7f\\x9b2J\\x9d\\x85'],
    ['a bidi override', 'ls \u202e~ fr- mr', 'ls \\u202e~ fr- mr'],
    ['bidi isolates and marks', '\u2066a\u2069\u200e\u200f\u061c', '\\u2066a\\u2069\\u200e\\u200f\\u061c'],
    ['zero-width characters and a BOM', 'r\u200bm\u200c \ufeff', 'r\\u200bm\\u200c \\ufeff'],
    ['line and paragraph separators', 'a\u2028b\u2029', 'a\\u2028b\\u2029'],
    ['a soft hyphen', 'r\u00adm', 'r\\xadm'],
    ['lone surrogates', 'a\ud800b\udc00', 'a\\ud800b\\udc00'],
    ['tag characters', 'ok\u{e0072}\u{e006d}', 'ok\\u{e0072}\\u{e006d}'],
    ['a supplementary variation selector', 'a\u{e0100}', 'a\\u{e0100}'],
    ['a NUL', 'a\u0000b', 'a\\x00b'],
    ['a backslash that starts no escape stays single', 'grep -E "a\\.b" C:\\Temp', 'grep -E "a\\.b" C:\\Temp'],
    ['a literal \\x is doubled, so it reads apart from an escape', "printf '\\x1b'", "printf '\\\\x1b'"],
    ['a literal \\u is doubled', 'echo \\u202e', 'echo \\\\u202e'],
    ['a backslash before an escape is doubled', 'a\\\u001b', 'a\\\\\\x1b'],
    ['a trailing backslash stays', 'a\\', 'a\\'],
    ['emoji, accents and arrows stay', 'café → 👍🏽 ✅', 'café → 👍🏽 ✅'],
    ['a joiner inside an emoji sequence stays', '👩‍💻 👩🏽‍💻 🏳️‍🌈', '👩‍💻 👩🏽‍💻 🏳️‍🌈'],
    ['a joiner between letters is shown', 'r\u200dm', 'r\\u200dm'],
  ])('%s', (_name, text, shown) => {
    expect(visibleText(text)).toBe(shown);
    expect(readBack(shown)).toBe(text);
  });

  it('keeps newlines and tabs of a multi-line block, and still shows a CR', () => {
    expect(visibleLines('line 1\n\tline 2\r\nline\u001b[1A3')).toBe('line 1\n\tline 2\\x0d\nline\\x1b[1A3');
  });

  it('prints nothing a terminal acts on or hides, on one line or as a block', () => {
    assertProperty(
      fc.property(hostileText, (text) => {
        expect(rawIn(visibleText(text), false)).toEqual([]);
        expect(rawIn(visibleLines(text), true)).toEqual([]);
        expect(visibleText(text)).not.toMatch(/\p{Cc}/u);
      }),
      { numRuns: 2000 },
    );
  });

  it('reads back to exactly the original, so two different texts never print the same', () => {
    assertProperty(
      fc.property(hostileText, (text) => {
        expect(readBack(visibleText(text))).toBe(text);
        expect(readBack(visibleLines(text))).toBe(text);
      }),
      { numRuns: 2000 },
    );
    assertProperty(
      fc.property(hostileText, hostileText, (left, right) => {
        fc.pre(left !== right);
        expect(visibleText(left)).not.toBe(visibleText(right));
      }),
      { numRuns: 2000 },
    );
  });
});

describe('terminalJson', () => {
  it('is the exact value as JSON, with nothing raw a terminal acts on', () => {
    assertProperty(
      fc.property(fc.dictionary(hostileText, fc.oneof(hostileText, fc.array(hostileText))), (value) => {
        const json = terminalJson(value);
        expect(JSON.parse(json)).toEqual(value);
        expect(rawIn(json, false)).toEqual([]);
      }),
      { numRuns: 1000 },
    );
  });

  it('escapes what JSON.stringify leaves raw', () => {
    const value = { command: 'ls\u009b2J\u202e\u2028\u007f\u{e0041}' };
    expect(JSON.stringify(value)).toMatch(/\u009b/);
    expect(terminalJson(value)).toBe('{"command":"ls\\u009b2J\\u202e\\u2028\\u007f\\udb40\\udc41"}');
  });
});
