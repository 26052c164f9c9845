// Node: Grep's regular expressions (docs/tools.md §11.5). The JavaScript RegExp is the reference; ripgrep gets a
// translation that spells out \d, \w, \s, \b, "." and "$" (ripgrep's are Unicode and line-terminator aware,
// JavaScript's are ASCII or ECMAScript-specific) and, as the engine runs it, reports every line JavaScript matches and
// maybe more (Unicode table differences aside: grep-rg.ts).

/** A pattern ready for searching, or the reason it is not a valid regular expression. */
export type SearchRegex = { ok: true; regex: RegExp; source: string } | { ok: false; message: string };

/** A ripgrep (Rust regex) pattern, or why the pattern has no ripgrep equivalent. */
export type RustTranslation = { ok: true; source: string } | { ok: false; reason: string };

/** How ripgrep will run a translation; each option widens it to a superset that the JavaScript re-test narrows. */
export interface RustRegexOptions {
  /** ripgrep runs with `--ignore-case` (the RegExp has the `i` flag). */
  ignoreCase?: boolean;
  /** ripgrep reads raw bytes (`--encoding none`): a UTF-8 BOM stays on line 1, invalid UTF-8 is not U+FFFD. */
  rawBytes?: boolean;
}

const JS_SYNTAX_CHARACTERS = /[\\^$.*+?()[\]{}|]/g;

/** Escapes text for a `u`-flag RegExp (only syntax characters: identity escapes of others are errors there). */
export function escapeRegExp(text: string): string {
  return text.replace(JS_SYNTAX_CHARACTERS, '\\$&');
}

/** Compiles the search pattern exactly as §11 validates it: flags "u" or "iu", literal text escaped first. */
export function compileSearchRegex(
  pattern: string,
  options: { caseSensitive: boolean; fixedStrings: boolean },
): SearchRegex {
  const source = options.fixedStrings ? escapeRegExp(pattern) : pattern;
  try {
    return { ok: true, regex: new RegExp(source, options.caseSensitive ? 'u' : 'iu'), source };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    // V8 says "Invalid regular expression: /<source>/<flags>: <problem>"; the caller quotes the pattern already.
    const problem = message.startsWith('Invalid regular expression:')
      ? message.slice(message.lastIndexOf(': ') + 2)
      : message;
    return { ok: false, message: problem };
  }
}

// Characters that mean something to the Rust regex parser outside and inside classes (ripgrep 13 and later).
const RUST_META = new Set(Array.from('\\.+*?()|[]{}^$#&-~'));
const RUST_CLASS_META = new Set(Array.from('\\[]-^&~'));
const DIGIT_ITEMS = '0-9';
const WORD_ITEMS = '0-9A-Za-z_';
// ECMAScript WhiteSpace and LineTerminator: what \s means in JavaScript (ripgrep's \s lacks U+FEFF, among others).
const SPACE_ITEMS =
  '\\t\\n\\x{B}\\x{C}\\r \\x{A0}\\x{1680}\\x{2000}-\\x{200A}\\x{2028}\\x{2029}\\x{202F}\\x{205F}\\x{3000}\\x{FEFF}';
const SET_ITEMS: Record<string, string> = { d: DIGIT_ITEMS, w: WORD_ITEMS, s: SPACE_ITEMS };
// JavaScript's "." without the s flag stops at every LineTerminator, not only at "\n".
const JS_DOT = '[^\\n\\r\\x{2028}\\x{2029}]';
// Lines reach ripgrep with their "\r" of a CRLF ending; JavaScript sees them without it, so "$" may skip one "\r".
const JS_END = '(?:\\r?$)';
// Read raw, line 1 of a file with a BOM starts with it; JavaScript strips it. Elsewhere the optional BOM only adds
// lines the re-test drops.
const RAW_START = '^(?-u:\\xEF\\xBB\\xBF)?';
// Under `iu`, JavaScript's \b and \B count ſ (U+017F) and K (U+212A) as word characters, because they fold to s and k;
// the ASCII boundary does not. On a line without them the two boundaries agree, so lines with them are all reported.
const FOLDED_WORD_CHARACTERS = '(?-i:[\\x{17F}\\x{212A}])';
// Matches exactly the lines holding invalid UTF-8 (the first bad byte: one never valid, a lead without its
// continuation bytes, or a continuation byte without a lead). JavaScript sees U+FFFD there, which ".", negated
// classes and the like match while ripgrep's Unicode classes never match the raw bytes; so all such lines are reported.
const INVALID_UTF8 =
  '(?-u:[\\xC0\\xC1\\xF5-\\xFF]' +
  '|[\\xC2-\\xDF](?:[^\\x80-\\xBF]|$)' +
  '|\\xE0(?:[^\\xA0-\\xBF]|$)|[\\xE1-\\xEC\\xEE\\xEF](?:[^\\x80-\\xBF]|$)|\\xED(?:[^\\x80-\\x9F]|$)' +
  '|[\\xE0-\\xEF][\\x80-\\xBF](?:[^\\x80-\\xBF]|$)' +
  '|\\xF0(?:[^\\x90-\\xBF]|$)|[\\xF1-\\xF3](?:[^\\x80-\\xBF]|$)|\\xF4(?:[^\\x80-\\x8F]|$)' +
  '|[\\xF0-\\xF4][\\x80-\\xBF](?:[^\\x80-\\xBF]|$)|[\\xF0-\\xF4][\\x80-\\xBF]{2}(?:[^\\x80-\\xBF]|$)' +
  '|(?:^|[\\x00-\\x7F])[\\x80-\\xBF]|[\\xC2-\\xDF][\\x80-\\xBF]{2}|[\\xE0-\\xEF][\\x80-\\xBF]{3}|[\\xF0-\\xF4][\\x80-\\xBF]{4})';
const REPLACEMENT_CHARACTER = 0xfffd;

type Token =
  | { kind: 'char'; codePoint: number }
  | { kind: 'set'; letter: 'd' | 'D' | 'w' | 'W' | 's' | 'S' }
  | { kind: 'raw'; text: string; boundary?: true };

type Step<T> = { ok: true; value: T; next: number } | { ok: false; reason: string };

/**
 * Translates a `u`-mode JavaScript pattern (already known to compile) into a Rust regex. Without options it matches
 * the same valid UTF-8 lines case-sensitively, where the JavaScript engine sees each line without its terminator and
 * ripgrep sees it with one. With options it matches a superset of the lines JavaScript matches, read as the options
 * say; the caller re-tests each reported line. Backreferences and lookaround have no Rust equivalent; a newline in the
 * pattern can never match a line, and ripgrep refuses it.
 */
export function toRustRegex(source: string, options: RustRegexOptions = {}): RustTranslation {
  const chars = Array.from(source);
  let output = '';
  let index = 0;
  // Whether the pattern has a word boundary, and whether some part of it can match U+FFFD.
  let boundary = false;
  let matchesReplacement = false;
  while (index < chars.length) {
    const char = chars[index]!;
    if (char === '\\') {
      const escape = parseEscape(chars, index + 1, false);
      if (!escape.ok) return { ok: false, reason: escape.reason };
      const token = escape.value;
      if (token.kind === 'char' && token.codePoint === 0x0a)
        return { ok: false, reason: 'a newline never matches a line' };
      if (token.kind === 'char') output += literal(token.codePoint, false);
      else output += token.kind === 'set' ? setOutside(token.letter) : token.text;
      boundary ||= token.kind === 'raw' && token.boundary === true;
      matchesReplacement ||= tokenMatchesReplacement(token);
      index = escape.next;
    } else if (char === '[') {
      const parsed = parseClass(chars, index + 1);
      if (!parsed.ok) return { ok: false, reason: parsed.reason };
      output += parsed.value.source;
      matchesReplacement ||= parsed.value.matchesReplacement;
      index = parsed.next;
    } else if (char === '(') {
      if (chars[index + 1] !== '?') {
        output += '(';
        index += 1;
      } else if (chars[index + 2] === ':') {
        output += '(?:';
        index += 3;
      } else if (chars[index + 2] === '<' && chars[index + 3] !== '=' && chars[index + 3] !== '!') {
        // A named group; names are never referred to here (a \k backreference is refused), so it becomes plain.
        const close = chars.indexOf('>', index + 3);
        if (close === -1) return { ok: false, reason: 'unterminated group name' };
        output += '(';
        index = close + 1;
      } else {
        return { ok: false, reason: 'lookaround assertions are not supported by ripgrep' };
      }
    } else if (char === '{') {
      // In u-mode a brace is always a quantifier, which Rust writes the same way.
      const close = chars.indexOf('}', index);
      if (close === -1) return { ok: false, reason: 'unterminated quantifier' };
      output += chars.slice(index, close + 1).join('');
      index = close + 1;
    } else if (char === '.') {
      output += JS_DOT;
      matchesReplacement = true;
      index += 1;
    } else if (char === '$') {
      output += JS_END;
      index += 1;
    } else if (char === '^') {
      output += options.rawBytes ? RAW_START : '^';
      index += 1;
    } else if (char === ')' || char === '|' || char === '*' || char === '+' || char === '?') {
      output += char;
      index += 1;
    } else {
      const codePoint = char.codePointAt(0)!;
      if (codePoint === 0x0a) return { ok: false, reason: 'a newline never matches a line' };
      output += literal(codePoint, false);
      matchesReplacement ||= codePoint === REPLACEMENT_CHARACTER;
      index += 1;
    }
  }
  const widened = [
    ...(options.ignoreCase && boundary ? [FOLDED_WORD_CHARACTERS] : []),
    ...(options.rawBytes && matchesReplacement ? [INVALID_UTF8] : []),
  ];
  return { ok: true, source: widened.length === 0 ? output : [`(?:${output})`, ...widened].join('|') };
}

/** Whether an escape outside a class can match U+FFFD: a negated set, a property (its tables are not ours), U+FFFD. */
function tokenMatchesReplacement(token: Token): boolean {
  if (token.kind === 'set') return token.letter === token.letter.toUpperCase();
  if (token.kind === 'raw') return token.boundary !== true;
  return token.codePoint === REPLACEMENT_CHARACTER;
}

/** A translated class, and whether it can match U+FFFD (a negated class is taken to). */
interface TranslatedClass {
  source: string;
  matchesReplacement: boolean;
}

function parseClass(chars: readonly string[], start: number): Step<TranslatedClass> {
  let index = start;
  const negated = chars[index] === '^';
  if (negated) index += 1;
  if (chars[index] === ']') {
    // "[^]" matches any character; "[]" matches none, which Rust cannot write.
    if (!negated) return { ok: false, reason: 'empty class' };
    return { ok: true, value: { source: '[\\x{0}-\\x{10FFFF}]', matchesReplacement: true }, next: index + 1 };
  }
  let items = '';
  let matchesReplacement = negated;
  while (index < chars.length && chars[index] !== ']') {
    const first = parseClassAtom(chars, index);
    if (!first.ok) return first;
    index = first.next;
    if (chars[index] === '-' && chars[index + 1] !== undefined && chars[index + 1] !== ']') {
      const second = parseClassAtom(chars, index + 1);
      if (!second.ok) return second;
      if (first.value.kind !== 'char' || second.value.kind !== 'char')
        return { ok: false, reason: 'class range of sets' };
      items += `${literal(first.value.codePoint, true)}-${literal(second.value.codePoint, true)}`;
      matchesReplacement ||=
        first.value.codePoint <= REPLACEMENT_CHARACTER && REPLACEMENT_CHARACTER <= second.value.codePoint;
      index = second.next;
      continue;
    }
    items += classItem(first.value);
    matchesReplacement ||= tokenMatchesReplacement(first.value);
  }
  if (chars[index] !== ']') return { ok: false, reason: 'unterminated class' };
  return { ok: true, value: { source: `[${negated ? '^' : ''}${items}]`, matchesReplacement }, next: index + 1 };
}

function parseClassAtom(chars: readonly string[], index: number): Step<Token> {
  const char = chars[index]!;
  if (char === '\\') return parseEscape(chars, index + 1, true);
  return { ok: true, value: { kind: 'char', codePoint: char.codePointAt(0)! }, next: index + 1 };
}

function classItem(token: Token): string {
  if (token.kind === 'char') return literal(token.codePoint, true);
  if (token.kind === 'raw') return token.text;
  const positive = SET_ITEMS[token.letter.toLowerCase()]!;
  // A negated set inside a class becomes a nested class, which Rust unions with the other items.
  return token.letter === token.letter.toLowerCase() ? positive : `[^${positive}]`;
}

function setOutside(letter: string): string {
  const positive = SET_ITEMS[letter.toLowerCase()]!;
  return letter === letter.toLowerCase() ? `[${positive}]` : `[^${positive}]`;
}

function literal(codePoint: number, inClass: boolean): string {
  if (codePoint < 0x20 || codePoint === 0x7f || (codePoint >= 0x80 && codePoint < 0xa0)) {
    return `\\x{${codePoint.toString(16).toUpperCase()}}`;
  }
  const char = String.fromCodePoint(codePoint);
  return (inClass ? RUST_CLASS_META : RUST_META).has(char) ? `\\${char}` : char;
}

const CONTROL_ESCAPES: Record<string, number> = { t: 0x09, n: 0x0a, v: 0x0b, f: 0x0c, r: 0x0d, '0': 0x00 };
const IDENTITY_ESCAPES = new Set(Array.from('^$\\.*+?()[]{}|/'));

function parseEscape(chars: readonly string[], index: number, inClass: boolean): Step<Token> {
  const char = chars[index];
  if (char === undefined) return { ok: false, reason: 'trailing backslash' };
  const next = index + 1;
  if (char === 'd' || char === 'D' || char === 'w' || char === 'W' || char === 's' || char === 'S') {
    return { ok: true, value: { kind: 'set', letter: char }, next };
  }
  if (char === 'b') {
    // ECMAScript's \b is the ASCII word boundary; ripgrep's plain \b is Unicode-aware. In a class it is backspace.
    return inClass
      ? { ok: true, value: { kind: 'char', codePoint: 0x08 }, next }
      : { ok: true, value: { kind: 'raw', text: '(?-u:\\b)', boundary: true }, next };
  }
  if (char === 'B' && !inClass) return { ok: true, value: { kind: 'raw', text: '(?-u:\\B)', boundary: true }, next };
  const control = CONTROL_ESCAPES[char];
  if (control !== undefined) return { ok: true, value: { kind: 'char', codePoint: control }, next };
  if (/^[1-9]$/.test(char) || char === 'k') return { ok: false, reason: 'backreferences are not supported by ripgrep' };
  if (char === 'c') {
    const letter = chars[next];
    if (letter === undefined || !/^[A-Za-z]$/.test(letter)) return { ok: false, reason: 'invalid control escape' };
    return { ok: true, value: { kind: 'char', codePoint: letter.charCodeAt(0) % 32 }, next: next + 1 };
  }
  if (char === 'x') {
    const hex = chars.slice(next, next + 2).join('');
    if (!/^[0-9A-Fa-f]{2}$/.test(hex)) return { ok: false, reason: 'invalid hex escape' };
    return { ok: true, value: { kind: 'char', codePoint: parseInt(hex, 16) }, next: next + 2 };
  }
  if (char === 'u') return parseUnicodeEscape(chars, next);
  if (char === 'p' || char === 'P') {
    const close = chars.indexOf('}', next);
    if (chars[next] !== '{' || close === -1) return { ok: false, reason: 'invalid property escape' };
    return {
      ok: true,
      value: { kind: 'raw', text: `\\${char}${chars.slice(next, close + 1).join('')}` },
      next: close + 1,
    };
  }
  if (IDENTITY_ESCAPES.has(char) || (inClass && char === '-')) {
    return { ok: true, value: { kind: 'char', codePoint: char.codePointAt(0)! }, next };
  }
  return { ok: false, reason: `unsupported escape \\${char}` };
}

function parseUnicodeEscape(chars: readonly string[], index: number): Step<Token> {
  let codePoint: number;
  let next: number;
  if (chars[index] === '{') {
    const close = chars.indexOf('}', index);
    const hex = close === -1 ? '' : chars.slice(index + 1, close).join('');
    if (!/^[0-9A-Fa-f]+$/.test(hex)) return { ok: false, reason: 'invalid unicode escape' };
    codePoint = parseInt(hex, 16);
    next = close + 1;
  } else {
    const hex = chars.slice(index, index + 4).join('');
    if (!/^[0-9A-Fa-f]{4}$/.test(hex)) return { ok: false, reason: 'invalid unicode escape' };
    codePoint = parseInt(hex, 16);
    next = index + 4;
    // In u-mode an escaped surrogate pair is one code point.
    if (codePoint >= 0xd800 && codePoint <= 0xdbff && chars[next] === '\\' && chars[next + 1] === 'u') {
      const low = chars.slice(next + 2, next + 6).join('');
      const lowValue = /^[0-9A-Fa-f]{4}$/.test(low) ? parseInt(low, 16) : -1;
      if (lowValue >= 0xdc00 && lowValue <= 0xdfff) {
        codePoint = 0x10000 + ((codePoint - 0xd800) << 10) + (lowValue - 0xdc00);
        next += 6;
      }
    }
  }
  if (codePoint > 0x10ffff || (codePoint >= 0xd800 && codePoint <= 0xdfff)) {
    return { ok: false, reason: 'lone surrogates are not supported by ripgrep' };
  }
  return { ok: true, value: { kind: 'char', codePoint }, next };
}
