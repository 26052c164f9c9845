// Node: text decoding and line handling shared by the file tools (docs/tools.md §11).

const UTF8_BOM = [0xef, 0xbb, 0xbf] as const;

/** Decoded file text. `encoding` is "utf-8-replace" when invalid sequences became U+FFFD. */
export interface DecodedText {
  text: string;
  encoding: 'utf-8' | 'utf-8-replace';
  /** Whether the bytes started with a UTF-8 byte-order mark (not part of `text`). */
  bom: boolean;
}

/** True when the bytes start with a UTF-8 BOM. */
export function hasUtf8Bom(bytes: Uint8Array): boolean {
  return bytes.length >= 3 && bytes[0] === UTF8_BOM[0] && bytes[1] === UTF8_BOM[1] && bytes[2] === UTF8_BOM[2];
}

/** Decodes UTF-8 without the BOM; invalid sequences become U+FFFD and are flagged. */
export function decodeUtf8Lenient(bytes: Uint8Array): DecodedText {
  const strict = decodeUtf8Strict(bytes);
  if (strict) return strict;
  const bom = hasUtf8Bom(bytes);
  return {
    text: new TextDecoder('utf-8', { ignoreBOM: true }).decode(bom ? bytes.subarray(3) : bytes),
    encoding: 'utf-8-replace',
    bom,
  };
}

/** Decodes UTF-8 without the BOM, or returns undefined for invalid UTF-8. */
export function decodeUtf8Strict(bytes: Uint8Array): DecodedText | undefined {
  const bom = hasUtf8Bom(bytes);
  try {
    const text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bom ? bytes.subarray(3) : bytes);
    return { text, encoding: 'utf-8', bom };
  } catch {
    return undefined;
  }
}

/** Encodes text as UTF-8, restoring a BOM the original had. */
export function encodeUtf8(text: string, bom: boolean): Buffer {
  const body = Buffer.from(text, 'utf8');
  return bom ? Buffer.concat([Buffer.from(UTF8_BOM), body]) : body;
}

/**
 * Splits text into lines: on "\n", one trailing "\r" stripped per line, and a final newline adds no empty line
 * ("a\nb\n" has 2 lines, "" has 0).
 */
export function splitLines(text: string): string[] {
  if (text === '') return [];
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines.map((line) => (line.endsWith('\r') ? line.slice(0, -1) : line));
}

/** Counts CRLF and bare-LF line endings. */
export function countLineEndings(text: string): { crlf: number; lf: number } {
  let crlf = 0;
  let lf = 0;
  for (let index = text.indexOf('\n'); index !== -1; index = text.indexOf('\n', index + 1)) {
    if (index > 0 && text.charCodeAt(index - 1) === 13) crlf++;
    else lf++;
  }
  return { crlf, lf };
}

/** Cuts a string to at most `max` UTF-16 code units without splitting a surrogate pair. */
export function cutAtCodeUnits(text: string, max: number): string {
  if (text.length <= max) return text;
  const code = text.charCodeAt(max - 1);
  const end = code >= 0xd800 && code <= 0xdbff ? max - 1 : max;
  return text.slice(0, end);
}
