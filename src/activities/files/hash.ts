// Node: a file's content hash for the read-before-write lock (docs/tools.md §8), which compares sha256, not mtimes; the
// hash of bytes in memory is the store's sha256Hex (store/object-key.ts), so both name content the same way.
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';

/** Hex sha256 of a file's current bytes, streamed so large files do not sit in memory. */
export async function sha256OfFile(filePath: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(filePath)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}
