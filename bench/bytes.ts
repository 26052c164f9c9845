// Byte counts as the durable-run report shows them, and the size of a directory store.
import fs from 'node:fs';
import path from 'node:path';

/** A byte count in B, KiB or MiB. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes.toFixed(0)} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
}

/**
 * Bytes of all files under `root` (0 before it exists). Synchronous on purpose: the activities writing the store run
 * in this process, so none of them can add a file halfway through the count.
 */
export function directoryBytesSync(root: string): number {
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(root, { withFileTypes: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 0;
    throw error;
  }
  let total = 0;
  for (const entry of entries) {
    const child = path.join(root, entry.name);
    if (entry.isDirectory()) total += directoryBytesSync(child);
    else if (entry.isFile()) total += fs.statSync(child).size;
  }
  return total;
}
