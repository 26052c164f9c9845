// Workflow-safe: pure string functions, no Node builtins. Text from the model, a tool, a file or a server, made safe to
// print on a terminal: every character a terminal acts on or hides is shown as a readable escape instead.
//
// Escaped: C0 controls (newline and tab kept only in a multi-line block), DEL, C1 controls, every format character
// (bidi overrides and isolates, marks, zero-width characters, BOM, tag characters), line and paragraph separators,
// lone surrogates and the supplementary variation selectors. A zero-width joiner between two pictographs is kept: it
// only joins an emoji sequence. The escapes are `\xHH` (up to U+00FF), `\uHHHH` and `\u{HHHHH}`; a run of backslashes
// just before an `x`, a `u` or an escape is doubled, so every printed text reads back to exactly one original.

/** Options of `visibleText`. */
export interface VisibleTextOptions {
  /** A multi-line block printed on purpose: newlines and tabs stay as they are (a CR is still shown). */
  lines?: boolean;
  /**
   * Leave backslashes as they are: for text that may already hold escapes (a whole line at the point it is written),
   * where only what is still raw must be shown. Two texts may then print the same; nothing hidden gets through.
   */
  keepBackslashes?: boolean;
}

const HIDDEN = /[\p{Cc}\p{Cf}\p{Cs}\p{Zl}\p{Zp}\u{E0100}-\u{E01EF}]/u;
const PICTOGRAPH = /\p{Extended_Pictographic}/u;
const ZERO_WIDTH_JOINER = 0x200d;

/** What may sit between a pictograph and the joiner of an emoji sequence: the emoji presentation selector, a skin tone. */
function isEmojiModifier(character: string): boolean {
  const code = character.codePointAt(0)!;
  return code === 0xfe0f || (code >= 0x1f3fb && code <= 0x1f3ff);
}

function isHidden(character: string, options: VisibleTextOptions): boolean {
  if (options.lines && (character === '\n' || character === '\t')) return false;
  return HIDDEN.test(character);
}

/** Whether the joiner at `index` joins two pictographs (`👩‍💻`), the one place it is neither hidden nor a trick. */
function joinsEmoji(characters: readonly string[], index: number): boolean {
  let before = index - 1;
  if (before >= 0 && isEmojiModifier(characters[before]!)) before -= 1;
  const next = characters[index + 1];
  return before >= 0 && PICTOGRAPH.test(characters[before]!) && next !== undefined && PICTOGRAPH.test(next);
}

function escapeOf(character: string): string {
  const code = character.codePointAt(0)!;
  if (code <= 0xff) return `\\x${code.toString(16).padStart(2, '0')}`;
  if (code <= 0xffff) return `\\u${code.toString(16).padStart(4, '0')}`;
  return `\\u{${code.toString(16)}}`;
}

/**
 * `text` with every character a terminal would act on or hide shown as an escape (`\x1b`, `\u202e`); the rest as it
 * is. Without `lines`, newlines and tabs are escaped too, so the text stays on the one line it is printed on.
 */
export function visibleText(text: string, options: VisibleTextOptions = {}): string {
  // Most text holds nothing to show and is returned as it is.
  if (!HIDDEN.test(text) && (options.keepBackslashes || !/\\[xu]/.test(text))) return text;
  // By code point: a lone surrogate comes out on its own, a pair as the one character it stands for.
  const characters = Array.from(text);
  let shown = '';
  let backslashes = 0;
  characters.forEach((character, index) => {
    if (character === '\\' && !options.keepBackslashes) {
      backslashes += 1;
      return;
    }
    const hidden =
      isHidden(character, options) &&
      !(character.codePointAt(0) === ZERO_WIDTH_JOINER && joinsEmoji(characters, index));
    // A backslash run is doubled only where it would otherwise read as the start of an escape.
    const ambiguous = hidden || character === 'x' || character === 'u';
    shown += '\\'.repeat(ambiguous ? backslashes * 2 : backslashes);
    backslashes = 0;
    shown += hidden ? escapeOf(character) : character;
  });
  return shown + '\\'.repeat(backslashes);
}

/** `visibleText` with `lines`: a multi-line block (an answer, a test run's output) printed line by line. */
export function visibleLines(text: string): string {
  return visibleText(text, { lines: true });
}

// Everything a terminal acts on or hides that JSON.stringify leaves raw (it escapes only U+0000–U+001F, `"` and `\`,
// and lone surrogates). These characters occur only inside JSON strings, where `\uHHHH` stands for them exactly.
const RAW_IN_JSON = /[\u007f-\u009f\p{Cf}\p{Zl}\p{Zp}\u{E0100}-\u{E01EF}]/gu;

/**
 * `JSON.stringify(value)` with every character a terminal acts on or hides written as a JSON `\uHHHH` escape: the
 * same JSON value, byte for byte decoded, but nothing in it reaches a terminal raw.
 */
export function terminalJson(value: unknown): string {
  return JSON.stringify(value).replace(RAW_IN_JSON, (character) =>
    Array.from(
      { length: character.length },
      (_unused, index) => `\\u${character.charCodeAt(index).toString(16).padStart(4, '0')}`,
    ).join(''),
  );
}
