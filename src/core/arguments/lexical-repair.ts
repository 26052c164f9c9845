// Workflow-safe: pure string functions, no Node builtins, no I/O.
// The lexical strategies of docs/tools.md §6: S3 balanced extraction, S4 one-pass repair, S5 closing truncated JSON.

/** Repair kinds S4 can report, in the order §6 lists them (and the order they are recorded in). */
export const LEXICAL_KINDS = [
  'single_quotes',
  'unquoted_keys',
  'trailing_comma',
  'python_literals',
  'control_chars',
  'comments',
] as const;

/** One of the S4 repair kinds. */
export type LexicalKind = (typeof LEXICAL_KINDS)[number];

type Phase = 'key' | 'colon' | 'value' | 'comma';

interface Frame {
  type: '{' | '[';
  phase: Phase;
  /** Output index where the latest key of this object began, so S5 can drop a key left without a value. */
  keyStart: number;
}

/** Where the S4 scan stopped: what S5 needs to close truncated text. */
export interface LexicalEnd {
  inString: boolean;
  stringIsKey: boolean;
  stringStart: number;
  frames: readonly Frame[];
}

/** The S4 output, the repairs it made and the state it ended in. */
export interface LexicalResult {
  text: string;
  kinds: LexicalKind[];
  end: LexicalEnd;
}

const CLOSER = { '{': '}', '[': ']' } as const;

/**
 * S3: the index of the bracket that balances the opener at `start`, or -1 when the text ends first.
 * Strings in either quote style are skipped so that brackets inside them do not count.
 */
export function findBalancedEnd(text: string, start: number): number {
  const opener = text[start];
  if (opener !== '{' && opener !== '[') return -1;
  const closer = CLOSER[opener];
  let depth = 0;
  let quote: string | null = null;
  for (let index = start; index < text.length; index++) {
    const char = text[index];
    if (quote !== null) {
      if (char === '\\') index++;
      else if (char === quote) quote = null;
      continue;
    }
    if (char === '"' || char === "'") quote = char;
    else if (char === opener) depth++;
    else if (char === closer && --depth === 0) return index;
  }
  return -1;
}

const LITERALS: Readonly<Record<string, string>> = {
  True: 'true',
  False: 'false',
  None: 'null',
  undefined: 'null',
  NaN: 'null',
  Infinity: 'null',
  '-Infinity': 'null',
  '+Infinity': 'null',
};

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
const BARE_WORD_CHAR = /[A-Za-z0-9_$.+-]/;

const CONTROL_ESCAPES: Readonly<Record<string, string>> = {
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
  '\b': '\\b',
  '\f': '\\f',
};

function escapeControl(char: string): string {
  return CONTROL_ESCAPES[char] ?? `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`;
}

/**
 * S4: one pass of a string-aware state machine applying every §6 lexical repair at once.
 * String contents are copied verbatim except for the two changes §6 allows: converting single quotes
 * (which escapes inner `"` and unescapes `\'`) and escaping raw control characters.
 */
export function repairLexically(text: string): LexicalResult {
  const kinds = new Set<LexicalKind>();
  const frames: Frame[] = [];
  let out = '';
  let index = 0;

  const top = (): Frame | undefined => frames[frames.length - 1];
  const valueStarted = (): void => {
    const frame = top();
    if (frame && (frame.phase === 'value' || frame.phase === 'key')) frame.phase = 'comma';
  };

  while (index < text.length) {
    const char = text[index] as string;

    if (char === '"' || char === "'") {
      const frame = top();
      const isKey = frame?.type === '{' && frame.phase === 'key';
      const start = out.length;
      if (char === "'") kinds.add('single_quotes');
      out += '"';
      index++;
      let closed = false;
      // Plain characters are copied in runs: argument strings can be megabytes long.
      let run = index;
      const flush = (): void => {
        if (run < index) out += text.slice(run, index);
      };
      while (index < text.length) {
        const inner = text[index] as string;
        if (inner === '\\') {
          const next = text[index + 1];
          if (next === undefined) {
            index++;
            break;
          }
          if (char === "'" && next === "'") {
            // `\'` is not a JSON escape; inside a converted string it just means a quote.
            flush();
            out += "'";
            run = index + 2;
          }
          index += 2;
          continue;
        }
        if (inner === char) {
          flush();
          out += '"';
          index++;
          closed = true;
          break;
        }
        if (inner === '"' || inner < ' ') {
          flush();
          if (inner === '"') out += '\\"';
          else {
            kinds.add('control_chars');
            out += escapeControl(inner);
          }
          run = index + 1;
        }
        index++;
      }
      if (!closed) {
        flush();
        return {
          text: out,
          kinds: ordered(kinds),
          end: { inString: true, stringIsKey: isKey, stringStart: start, frames },
        };
      }
      if (frame && isKey) {
        frame.phase = 'colon';
        frame.keyStart = start;
      } else valueStarted();
      continue;
    }

    if (char === '/' && (text[index + 1] === '/' || text[index + 1] === '*')) {
      kinds.add('comments');
      if (text[index + 1] === '/') {
        const newline = text.indexOf('\n', index);
        index = newline === -1 ? text.length : newline;
      } else {
        const close = text.indexOf('*/', index + 2);
        index = close === -1 ? text.length : close + 2;
        // A space keeps `1/**/2` from fusing into a different number.
        out += ' ';
      }
      continue;
    }

    if (char === '{' || char === '[') {
      valueStarted();
      frames.push({ type: char, phase: char === '{' ? 'key' : 'value', keyStart: -1 });
      out += char;
      index++;
      continue;
    }

    if (char === '}' || char === ']') {
      frames.pop();
      out += char;
      index++;
      continue;
    }

    if (char === ',') {
      const frame = top();
      if (frame) frame.phase = frame.type === '{' ? 'key' : 'value';
      const following = text[skipInsignificant(text, index + 1)];
      if (following === '}' || following === ']') kinds.add('trailing_comma');
      else out += char;
      index++;
      continue;
    }

    if (char === ':') {
      const frame = top();
      if (frame?.phase === 'colon') frame.phase = 'value';
      out += char;
      index++;
      continue;
    }

    if (BARE_WORD_CHAR.test(char)) {
      let end = index + 1;
      while (end < text.length && BARE_WORD_CHAR.test(text[end] as string)) end++;
      const word = text.slice(index, end);
      const frame = top();
      if (frame?.type === '{' && frame.phase === 'key' && IDENTIFIER.test(word)) {
        kinds.add('unquoted_keys');
        frame.keyStart = out.length;
        frame.phase = 'colon';
        out += `"${word}"`;
      } else {
        const literal = Object.hasOwn(LITERALS, word) ? LITERALS[word] : undefined;
        if (literal !== undefined) kinds.add('python_literals');
        out += literal ?? word;
        valueStarted();
      }
      index = end;
      continue;
    }

    out += char;
    index++;
  }

  return { text: out, kinds: ordered(kinds), end: { inString: false, stringIsKey: false, stringStart: -1, frames } };
}

/** The index of the next character that is neither whitespace nor inside a comment. */
function skipInsignificant(text: string, from: number): number {
  let index = from;
  for (;;) {
    while (index < text.length && (text[index] as string).trim() === '') index++;
    if (text[index] !== '/') return index;
    if (text[index + 1] === '/') {
      const newline = text.indexOf('\n', index);
      index = newline === -1 ? text.length : newline;
    } else if (text[index + 1] === '*') {
      const close = text.indexOf('*/', index + 2);
      index = close === -1 ? text.length : close + 2;
    } else return index;
  }
}

function ordered(kinds: ReadonlySet<LexicalKind>): LexicalKind[] {
  return LEXICAL_KINDS.filter((kind) => kinds.has(kind));
}

// A backslash run at the very end, optionally followed by a half-written \u escape.
const TRAILING_ESCAPE = /(\\+)(u[0-9a-fA-F]{0,3})?$/;

/**
 * S5: closes what truncation left open in the S4 output — the open string, then a dangling comma or a key
 * without a value, then the open brackets innermost first. Returns null when nothing was left open.
 */
export function closeTruncated(result: LexicalResult): string | null {
  const { end } = result;
  let text = result.text;
  const frame = end.frames[end.frames.length - 1];
  let changed = false;

  if (end.inString) {
    changed = true;
    if (end.stringIsKey) text = text.slice(0, end.stringStart);
    else {
      const escape = TRAILING_ESCAPE.exec(text);
      // An odd run means the last backslash starts an escape the truncation cut off.
      if (escape && (escape[1] as string).length % 2 === 1) {
        text = text.slice(0, text.length - 1 - (escape[2]?.length ?? 0));
      }
      text += '"';
    }
  } else if (frame?.type === '{' && (frame.phase === 'colon' || frame.phase === 'value') && frame.keyStart >= 0) {
    // `"key"` or `"key":` with no value: the key goes, as no value is ever invented for it.
    text = text.slice(0, frame.keyStart);
    changed = true;
  }

  const trimmed = text.trimEnd();
  if (trimmed.endsWith(',')) {
    text = trimmed.slice(0, -1);
    changed = true;
  }

  if (end.frames.length === 0) return changed ? text : null;
  for (let depth = end.frames.length - 1; depth >= 0; depth--) text += CLOSER[(end.frames[depth] as Frame).type];
  return text;
}
