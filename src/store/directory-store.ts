// Node: the content store on a local (or shared network) filesystem: `<root>/objects/<2 hex>/<62 hex>`.
// Objects are written once, atomically, and never changed; a re-put only touches the file's mtime.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { ContentKey } from '../protocol/content-key.js';
import type { ContentStore, DeleteOptions, StoredObject } from './content-store.js';
import { CorruptContentError, MissingContentError, StoreOutageError } from './content-store.js';
import { contentBytes, keyHex, sha256Hex } from './object-key.js';

const OBJECT_NAME = /^[0-9a-f]{62}$/;
const PREFIX_NAME = /^[0-9a-f]{2}$/;

/** A content store in a directory; the directory is created on the first write. */
export function createDirectoryStore(root: string): ContentStore {
  const absoluteRoot = path.resolve(root);
  const objects = path.join(absoluteRoot, 'objects');
  const description = `directory ${absoluteRoot}`;
  const objectPath = (hex: string): string => path.join(objects, hex.slice(0, 2), hex.slice(2));

  return {
    description,

    async put(content) {
      const bytes = contentBytes(content);
      const hex = sha256Hex(bytes);
      const file = objectPath(hex);
      // Present already: refresh the mtime instead of writing, so a collector judging age sees the re-use.
      if (await touch(file)) return `sha256:${hex}`;
      try {
        await writeAtomically(file, bytes);
      } catch (error) {
        throw explainWriteError(error, absoluteRoot, bytes.byteLength);
      }
      return `sha256:${hex}`;
    },

    async get(key) {
      const file = objectPath(keyHex(key));
      let bytes: Buffer;
      try {
        bytes = await fs.readFile(file);
      } catch (error) {
        if (isCode(error, 'ENOENT')) throw new MissingContentError(key, description);
        throw error;
      }
      // Hashing on read costs about a millisecond per megabyte next to the read itself, and it is the only place a
      // damaged or hand-edited object would be noticed before its wrong bytes reached a model or a user.
      const actual = sha256Hex(bytes);
      if (`sha256:${actual}` !== key) {
        await fs.rm(file, { force: true });
        throw new CorruptContentError(key, description, `sha256:${actual}`);
      }
      return bytes;
    },

    async has(key) {
      try {
        await fs.stat(objectPath(keyHex(key)));
        return true;
      } catch (error) {
        if (isCode(error, 'ENOENT')) return false;
        throw error;
      }
    },

    async *list(): AsyncIterable<StoredObject> {
      for (const prefix of await readNames(objects)) {
        if (!PREFIX_NAME.test(prefix)) continue;
        // Temp files of writes in progress and tombstones of deletes in progress fail the name test.
        for (const name of await readNames(path.join(objects, prefix))) {
          if (!OBJECT_NAME.test(name)) continue;
          const stats = await statIfExists(path.join(objects, prefix, name));
          if (stats) yield { key: `sha256:${prefix}${name}`, bytes: stats.size, writtenAt: stats.mtime };
        }
      }
    },

    async delete(key: ContentKey, options: DeleteOptions = {}) {
      const file = objectPath(keyHex(key));
      if (!options.ifWrittenBefore) return unlinkIfExists(file);
      return deleteIfWrittenBefore(file, options.ifWrittenBefore);
    },
  };
}

/**
 * A full disk or quota named as such, with the place to free: the write left nothing behind (its temp file is
 * removed), and the error stays retryable, so the run waits until there is room.
 */
function explainWriteError(error: unknown, root: string, bytes: number): unknown {
  const code = isCode(error, 'ENOSPC') ? 'ENOSPC' : isCode(error, 'EDQUOT') ? 'EDQUOT' : undefined;
  if (!code) return error;
  return new StoreOutageError(
    `content store disk full (${code}) at ${root}: could not write ${bytes} bytes; free space there`,
    { cause: error },
  );
}

/** Sets the file's times to now; false when it does not exist. */
async function touch(file: string): Promise<boolean> {
  const now = new Date();
  try {
    await fs.utimes(file, now, now);
    return true;
  } catch (error) {
    if (isCode(error, 'ENOENT')) return false;
    // A store shared between users: the content is there, only its age cannot be refreshed by this one.
    if (isCode(error, 'EPERM') || isCode(error, 'EACCES')) return true;
    throw error;
  }
}

/**
 * Temp file in the same directory, fsync, rename, fsync the directory: after a crash the object is either absent or
 * complete, never partial. Two writers of the same key rename identical bytes, so the race is harmless.
 */
async function writeAtomically(file: string, bytes: Buffer): Promise<void> {
  const directory = path.dirname(file);
  const temp = path.join(directory, `.tmp-${randomBytes(8).toString('hex')}`);
  try {
    await createFile(temp, bytes);
    await fs.rename(temp, file);
  } catch (error) {
    await fs.rm(temp, { force: true });
    throw error;
  }
  await syncDirectory(directory);
}

/**
 * Writes a new file and fsyncs it before closing it (`flush`), making its directory when that is missing: a prefix
 * directory is made once, not checked per write.
 */
async function createFile(file: string, bytes: Buffer): Promise<void> {
  const options = { flag: 'wx', mode: 0o444, flush: true } as const;
  try {
    await fs.writeFile(file, bytes, options);
  } catch (error) {
    if (!isCode(error, 'ENOENT')) throw error;
    await fs.mkdir(path.dirname(file), { recursive: true });
    await fs.writeFile(file, bytes, options);
  }
}

async function syncDirectory(directory: string): Promise<void> {
  const handle = await fs.open(directory, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * Moves the object aside, then looks at its mtime: a re-put either touched it before the move (seen here, so it is
 * moved back) or found it gone and wrote it again. Either way content re-used during a sweep survives it.
 */
async function deleteIfWrittenBefore(file: string, cutoff: Date): Promise<boolean> {
  const tombstone = `${file}.deleting-${randomBytes(4).toString('hex')}`;
  try {
    await fs.rename(file, tombstone);
  } catch (error) {
    if (isCode(error, 'ENOENT')) return false;
    throw error;
  }
  const stats = await fs.stat(tombstone);
  if (stats.mtimeMs >= cutoff.getTime()) {
    await fs.rename(tombstone, file);
    return false;
  }
  await fs.rm(tombstone, { force: true });
  return true;
}

async function unlinkIfExists(file: string): Promise<boolean> {
  try {
    await fs.unlink(file);
    return true;
  } catch (error) {
    if (isCode(error, 'ENOENT')) return false;
    throw error;
  }
}

async function readNames(directory: string): Promise<string[]> {
  try {
    return await fs.readdir(directory);
  } catch (error) {
    if (isCode(error, 'ENOENT')) return [];
    throw error;
  }
}

async function statIfExists(file: string) {
  try {
    return await fs.stat(file);
  } catch (error) {
    // Deleted between the directory listing and the stat.
    if (isCode(error, 'ENOENT')) return undefined;
    throw error;
  }
}

function isCode(error: unknown, code: string): boolean {
  return error instanceof Error && (error as NodeJS.ErrnoException).code === code;
}
