// Node: one streamed pass over an opened text file for ReadFile (docs/tools.md §11.1): the sha256 of the whole file
// (the read-before-write lock of §8 covers all of it), the line count, whether it is valid UTF-8, and the bytes of only
// the lines asked for, each kept up to a bound. Memory is one read buffer plus what is returned, however large the
// file (a sparse file of gigabytes costs no more than a small one).
import { createHash } from 'node:crypto';
import { isUtf8 } from 'node:buffer';
import type { FileHandle } from 'node:fs/promises';

const CHUNK_BYTES = 64 * 1024;
const NEWLINE = 0x0a;
const CARRIAGE_RETURN = 0x0d;

/** One wanted line: its bytes (BOM and one trailing CR removed), or its first `maxLineBytes` when `cut`. */
export interface ScannedLine {
  lineNumber: number;
  bytes: Buffer;
  cut: boolean;
}

/** What the pass found. */
export interface LineScan {
  sha256: string;
  /** Lines as `splitLines` counts them: a final newline adds none, an empty file has 0. */
  totalLines: number;
  /** Whether the bytes after an optional BOM are valid UTF-8. */
  validUtf8: boolean;
  bytesRead: number;
}

/**
 * Streams `handle` from its start. Lines `firstLine`..`lastLine` go to `onLine` in order until it returns false;
 * each line's bytes are kept up to `maxLineBytes`. `bom` says the file starts with a UTF-8 BOM (not part of line 1).
 */
export async function scanLines(
  handle: FileHandle,
  options: {
    firstLine: number;
    lastLine: number;
    maxLineBytes: number;
    bom: boolean;
    onLine: (line: ScannedLine) => boolean;
    signal?: AbortSignal;
  },
): Promise<LineScan> {
  const { firstLine, lastLine, maxLineBytes, onLine } = options;
  const hash = createHash('sha256');
  const buffer = Buffer.allocUnsafe(CHUNK_BYTES);
  let position = 0;
  let lineNumber = 1;
  let newlines = 0;
  // Bytes of the current line seen so far (0 right after a newline), and the part of them kept.
  let lineLength = 0;
  let kept: Buffer[] = [];
  let keptBytes = 0;
  let collecting = firstLine <= lastLine;
  let skip = options.bom ? 3 : 0;
  let validUtf8 = true;
  let carry: Buffer = Buffer.alloc(0);

  const keep = (part: Buffer): void => {
    if (!collecting || lineNumber < firstLine || lineNumber > lastLine || keptBytes > maxLineBytes) return;
    // One byte past the bound marks the line as cut without keeping the rest.
    const room = maxLineBytes + 1 - keptBytes;
    const taken = part.length > room ? part.subarray(0, room) : part;
    kept.push(Buffer.from(taken));
    keptBytes += taken.length;
  };
  const endLine = (): void => {
    if (collecting && lineNumber >= firstLine && lineNumber <= lastLine) {
      let bytes = Buffer.concat(kept, keptBytes);
      const cut = bytes.length > maxLineBytes;
      if (cut) bytes = bytes.subarray(0, maxLineBytes);
      else if (bytes.length > 0 && bytes[bytes.length - 1] === CARRIAGE_RETURN) bytes = bytes.subarray(0, -1);
      if (!onLine({ lineNumber, bytes, cut })) collecting = false;
      if (lineNumber >= lastLine) collecting = false;
    }
    kept = [];
    keptBytes = 0;
    lineLength = 0;
    lineNumber++;
  };

  for (;;) {
    options.signal?.throwIfAborted();
    const { bytesRead } = await handle.read(buffer, 0, CHUNK_BYTES, position);
    if (bytesRead === 0) break;
    position += bytesRead;
    let chunk = buffer.subarray(0, bytesRead);
    hash.update(chunk);
    if (skip > 0) {
      const skipped = Math.min(skip, chunk.length);
      chunk = chunk.subarray(skipped);
      skip -= skipped;
    }
    if (validUtf8) {
      const joined = carry.length > 0 ? Buffer.concat([carry, chunk]) : chunk;
      const tail = incompleteTail(joined);
      validUtf8 = isUtf8(joined.subarray(0, joined.length - tail));
      carry = Buffer.from(joined.subarray(joined.length - tail));
    }
    let start = 0;
    for (let index = chunk.indexOf(NEWLINE); index !== -1; index = chunk.indexOf(NEWLINE, start)) {
      keep(chunk.subarray(start, index));
      newlines++;
      endLine();
      start = index + 1;
    }
    if (start < chunk.length) {
      keep(chunk.subarray(start));
      lineLength += chunk.length - start;
    }
  }
  // A sequence cut off by the end of the file is invalid.
  if (carry.length > 0) validUtf8 = false;
  const trailing = lineLength > 0;
  if (trailing) endLine();
  return { sha256: hash.digest('hex'), totalLines: newlines + (trailing ? 1 : 0), validUtf8, bytesRead: position };
}

/** How many bytes at the end of `bytes` start a UTF-8 sequence that continues past it (0 to 3). */
function incompleteTail(bytes: Buffer): number {
  for (let back = 1; back <= Math.min(3, bytes.length); back++) {
    const byte = bytes[bytes.length - back]!;
    if ((byte & 0xc0) === 0x80) continue;
    const length = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
    return length > back ? back : 0;
  }
  return 0;
}
