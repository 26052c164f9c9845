// Node: content keys computed with node:crypto (native SHA-256, several times faster than the portable hash the
// workflow uses) for the stores, which hash every byte they write and read.
import { createHash } from 'node:crypto';
import type { ContentKey } from '../protocol/content-key.js';
import { isContentKey } from '../protocol/content-key.js';

/** The bytes of stored content: UTF-8 for a string, the same memory for bytes (no copy). */
export function contentBytes(content: string | Uint8Array): Buffer {
  return typeof content === 'string'
    ? Buffer.from(content, 'utf8')
    : Buffer.from(content.buffer, content.byteOffset, content.byteLength);
}

/** The 64 hex digits of the bytes' SHA-256; `sha256:<hex>` equals core's `contentKey()` of the same content. */
export function sha256Hex(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** The hex part of a key; throws for anything else, so a key from a command line can never name another path. */
export function keyHex(key: ContentKey): string {
  if (!isContentKey(key)) throw new TypeError(`Not a content key: ${JSON.stringify(key)}`);
  return key.slice('sha256:'.length);
}
