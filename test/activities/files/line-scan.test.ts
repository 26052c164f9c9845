import { createHash } from 'node:crypto';
import { open, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { scanLines } from '../../../src/activities/files/line-scan.js';
import type { ScannedLine } from '../../../src/activities/files/line-scan.js';
import { decodeUtf8Lenient, hasUtf8Bom, splitLines } from '../../../src/activities/files/text.js';
import { makeWorkspace, removeWorkspace } from './session.js';

let root: string;

beforeEach(async () => {
  root = await makeWorkspace('line-scan-');
});

afterEach(async () => {
  await removeWorkspace(root);
});

async function scan(bytes: Buffer, firstLine: number, lastLine: number, maxLineBytes = 1 << 20) {
  const file = path.join(root, 'f.txt');
  await writeFile(file, bytes);
  const handle = await open(file, 'r');
  const lines: ScannedLine[] = [];
  try {
    const result = await scanLines(handle, {
      firstLine,
      lastLine,
      maxLineBytes,
      bom: hasUtf8Bom(bytes),
      onLine: (line) => (lines.push(line), true),
    });
    return { result, lines };
  } finally {
    await handle.close();
  }
}

// Pieces that land on the 64 KiB read boundaries in every position: multi-byte characters, CRLF, invalid bytes.
const PIECES = ['a', 'é', '€', '😀', '\r\n', '\n', '\r', '\uFEFF', 'plain text '];

function randomContent(seed: number, length: number): Buffer {
  let state = seed;
  const next = () => ((state = (state * 1103515245 + 12345) >>> 0) >>> 8) / (1 << 24);
  const parts: Buffer[] = [];
  let size = 0;
  while (size < length) {
    const part = next() < 0.01 ? Buffer.from([0xff]) : Buffer.from(PIECES[Math.floor(next() * PIECES.length)]!);
    parts.push(part);
    size += part.length;
  }
  return Buffer.concat(parts);
}

describe('scanLines', () => {
  it('agrees with decoding and splitting the whole file, across read boundaries', async () => {
    for (const [seed, withBom] of [
      [1, false],
      [2, true],
      [3, false],
    ] as const) {
      let bytes = randomContent(seed, 150_000);
      if (withBom) bytes = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), bytes]);
      const decoded = decodeUtf8Lenient(bytes);
      const expected = splitLines(decoded.text);
      const { result, lines } = await scan(bytes, 1, Number.MAX_SAFE_INTEGER);
      expect(result.totalLines).toBe(expected.length);
      expect(result.sha256).toBe(createHash('sha256').update(bytes).digest('hex'));
      expect(result.validUtf8).toBe(decoded.encoding === 'utf-8');
      const decoder = new TextDecoder('utf-8', { ignoreBOM: true });
      expect(lines.map((line) => decoder.decode(line.bytes))).toEqual(expected);
    }
  });

  it('keeps only the wanted lines, each up to its bound, and counts the rest', async () => {
    const bytes = Buffer.from(`one\n${'x'.repeat(100_000)}\nthree\nfour`);
    const { result, lines } = await scan(bytes, 2, 3, 10);
    expect(result).toMatchObject({ totalLines: 4, validUtf8: true, bytesRead: bytes.length });
    expect(lines).toEqual([
      { lineNumber: 2, bytes: Buffer.from('x'.repeat(10)), cut: true },
      { lineNumber: 3, bytes: Buffer.from('three'), cut: false },
    ]);
  });

  it('counts like splitLines at the edges: empty, a lone newline, a BOM alone, a truncated sequence', async () => {
    expect((await scan(Buffer.alloc(0), 1, 1)).result.totalLines).toBe(0);
    expect((await scan(Buffer.from('\n'), 1, 1)).result.totalLines).toBe(1);
    expect((await scan(Buffer.from([0xef, 0xbb, 0xbf]), 1, 1)).result.totalLines).toBe(0);
    const cut = await scan(Buffer.from([0x61, 0xe2, 0x82]), 1, 1);
    expect(cut.result).toMatchObject({ totalLines: 1, validUtf8: false });
  });
});
