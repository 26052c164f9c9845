// Node: a Bash command's output streams: captured in bounded memory (the first 10 MiB and a rolling tail of the
// rest), cut in the middle for the model, and written whole to the spill file.

/** Bytes of each stream kept in memory; the excess is counted and dropped (a short tail of it is still kept). */
const MAX_CAPTURE_BYTES = 10 * 1024 * 1024;
/** Characters of a stream shown to the model before it is cut in the middle. */
export const STREAM_CHAR_CAP = 30_000;
/** Characters kept from the start of a cut stream. */
export const STREAM_HEAD_CHARS = 6_000;
/** Characters kept from the end of a cut stream. */
export const STREAM_TAIL_CHARS = 24_000;

// Beyond the 10 MiB cap the end of the output (test summaries, the error) still matters most, so a rolling tail of the
// dropped bytes is kept: enough for the 24,000 characters the model sees even in 4-byte UTF-8.
const DROPPED_TAIL_BYTES = 4 * STREAM_TAIL_CHARS;

/** Cuts a stream longer than STREAM_CHAR_CAP to its first 6,000 and last 24,000 characters around a marker. */
export function capStream(text: string, fullOutput: string): { text: string; truncated: boolean } {
  if (text.length <= STREAM_CHAR_CAP) return { text, truncated: false };
  let headEnd = STREAM_HEAD_CHARS;
  if (isHighSurrogate(text.charCodeAt(headEnd - 1))) headEnd--;
  let tailStart = text.length - STREAM_TAIL_CHARS;
  if (isLowSurrogate(text.charCodeAt(tailStart))) tailStart++;
  const omitted = tailStart - headEnd;
  return {
    text: `${text.slice(0, headEnd)}\n… [${omitted} chars omitted; ${fullOutput}] …\n${text.slice(tailStart)}`,
    truncated: true,
  };
}

/** Content of a Bash spill file: both complete streams (docs/tools.md §11.6). */
export function formatOutputSpill(stdout: string, stderr: string): string {
  return `--- stdout ---\n${stdout}\n--- stderr ---\n${stderr}\n`;
}

/** One output stream: the first MAX_CAPTURE_BYTES in memory, a count of the rest and a rolling tail of it. */
export class StreamCapture {
  totalBytes = 0;
  private readonly head: Buffer[] = [];
  private headBytes = 0;
  private readonly tail: Buffer[] = [];
  private tailBytes = 0;

  push(chunk: Buffer): void {
    this.totalBytes += chunk.length;
    const room = MAX_CAPTURE_BYTES - this.headBytes;
    if (room > 0) {
      const kept = chunk.length <= room ? chunk : chunk.subarray(0, room);
      this.head.push(kept);
      this.headBytes += kept.length;
      if (kept.length === chunk.length) return;
      chunk = chunk.subarray(room);
    }
    this.tail.push(chunk);
    this.tailBytes += chunk.length;
    while (this.tail.length > 1 && this.tailBytes - this.tail[0]!.length >= DROPPED_TAIL_BYTES) {
      this.tailBytes -= this.tail.shift()!.length;
    }
  }

  get droppedBytes(): number {
    return this.totalBytes - this.headBytes;
  }

  text(): string {
    // `stream: true` leaves a code point cut by the capture limit out instead of turning it into U+FFFD.
    const head = new TextDecoder().decode(Buffer.concat(this.head), { stream: this.droppedBytes > 0 });
    if (this.droppedBytes === 0) return head;
    let tail = Buffer.concat(this.tail);
    tail = tail.subarray(Math.max(0, tail.length - DROPPED_TAIL_BYTES));
    let start = 0;
    while (start < Math.min(3, tail.length) && (tail[start]! & 0xc0) === 0x80) start++;
    const dropped = this.droppedBytes - (tail.length - start);
    return `${head}\n… [${dropped} bytes beyond the ${MAX_CAPTURE_BYTES}-byte capture limit were not kept] …\n${new TextDecoder().decode(tail.subarray(start))}`;
  }
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}
