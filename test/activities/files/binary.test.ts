import { describe, expect, it } from 'vitest';
import { looksBinary } from '../../../src/activities/files/binary.js';

describe('looksBinary', () => {
  it('flags a NUL anywhere in the first 8,192 bytes and ignores one after', () => {
    const late = Buffer.alloc(9000, 0x61);
    late[8191] = 0;
    expect(looksBinary(late)).toBe(true);
    late[8191] = 0x61;
    late[8192] = 0;
    expect(looksBinary(late)).toBe(false);
  });

  it('uses a strict 30% share of 0x00-0x08 and 0x0E-0x1F over the first 4,096 bytes', () => {
    const sample = Buffer.alloc(4096, 0x61);
    const threshold = Math.floor(4096 * 0.3);
    sample.fill(0x0e, 0, threshold);
    expect(looksBinary(sample)).toBe(false);
    sample[threshold] = 0x1f;
    expect(looksBinary(sample)).toBe(true);
  });

  it('does not count tab, newline, vertical tab, form feed or carriage return', () => {
    expect(looksBinary(Buffer.from('\t\n\v\f\r'.repeat(100)))).toBe(false);
  });

  it('treats an empty file as text', () => {
    expect(looksBinary(Buffer.alloc(0))).toBe(false);
  });
});
