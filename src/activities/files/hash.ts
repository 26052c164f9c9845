// Content hashes for the read-before-write lock (TOOL-SPEC C.8): the lock compares sha256, not mtimes.
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';

/** Hex sha256 of bytes (or of a string's UTF-8 encoding). */
export function sha256Hex(content: Uint8Array | string): string {
  return createHash('sha256').update(content).digest('hex');
}

/** Hex sha256 of a file's current bytes, streamed so large files do not sit in memory. */
export async function sha256OfFile(filePath: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(filePath)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}
