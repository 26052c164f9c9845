// Atomic commit of TOOL-SPEC C.8: write a temp file beside the target, fsync, then rename (or link, for a new file).
import { createHash, randomBytes } from 'node:crypto';
import { link, open, readdir, rename, unlink } from 'node:fs/promises';
import path from 'node:path';
import { errorCode } from './errors.js';
import { sameVersion, statSnapshot } from './snapshot.js';
import type { FileSnapshot } from './snapshot.js';

/** The outcome of a commit: the new file's snapshot, or the CONFLICT reason that stopped it. */
export type CommitResult =
  { ok: true; snapshot: FileSnapshot } | { ok: false; reason: 'modified_during_write' | 'created_concurrently' };

// Keeps the temp name under NAME_MAX (255) however long the target's name is.
const MAX_NAME_IN_TEMP = 150;

/**
 * `.<name>.agent-<owner><rand>.tmp` in the target's directory, so the rename never crosses a file system. `owner` (the
 * write's activity key) gives the first half of the hex: a retry can find and remove what a killed attempt left.
 */
export function tempPathFor(target: string, owner?: string): string {
  const name = path.basename(target).slice(0, MAX_NAME_IN_TEMP);
  const prefix = owner === undefined ? randomBytes(3).toString('hex') : ownerTag(owner);
  return path.join(path.dirname(target), `.${name}.agent-${prefix}${randomBytes(3).toString('hex')}.tmp`);
}

/**
 * Removes the temp files an earlier attempt of `owner` left beside `target`: a worker killed between writing the temp
 * file and the rename never reaches its cleanup. Returns how many were removed.
 */
export async function removeLeftoverTemps(target: string, owner: string): Promise<number> {
  const start = `.${path.basename(target).slice(0, MAX_NAME_IN_TEMP)}.agent-${ownerTag(owner)}`;
  let names: string[];
  try {
    names = await readdir(path.dirname(target));
  } catch {
    return 0;
  }
  const leftovers = names.filter(
    (name) => name.startsWith(start) && /^[0-9a-f]{6}\.tmp$/.test(name.slice(start.length)),
  );
  await Promise.all(leftovers.map((name) => unlink(path.join(path.dirname(target), name)).catch(() => undefined)));
  return leftovers.length;
}

function ownerTag(owner: string): string {
  return createHash('sha256').update(owner).digest('hex').slice(0, 6);
}

/**
 * Replaces an existing file atomically. `expected` is the snapshot taken when this call read the file; if the file
 * changed since, nothing is replaced. `beforeCommit` runs after the new bytes are durable and before the re-stat
 * (the write journal goes there).
 */
export async function replaceFileAtomically(options: {
  target: string;
  content: Uint8Array;
  expected: FileSnapshot;
  beforeCommit?: () => Promise<void>;
  /** Names the temp file after its writer (see tempPathFor). */
  owner?: string;
}): Promise<CommitResult> {
  const { target, expected } = options;
  const temp = tempPathFor(target, options.owner);
  let committed = false;
  try {
    await writeDurably(temp, options.content, expected);
    await options.beforeCommit?.();
    // The window between this stat and the rename is as small as it can be without OS support for compare-and-swap.
    let current: FileSnapshot | undefined;
    try {
      current = await statSnapshot(target);
    } catch (error) {
      if (errorCode(error) !== 'ENOENT') throw error;
    }
    if (!current || !sameVersion(current, expected)) return { ok: false, reason: 'modified_during_write' };
    await rename(temp, target);
    committed = true;
    await syncDirectory(path.dirname(target));
    return { ok: true, snapshot: await statSnapshot(target) };
  } finally {
    if (!committed) await unlink(temp).catch(() => undefined);
  }
}

/**
 * Creates a new file, failing if one appears first. The bytes go to a temp file and are hard-linked into place, which
 * is both exclusive and atomic; file systems without hard links fall back to an exclusive open.
 */
export async function createFileExclusively(options: {
  target: string;
  content: Uint8Array;
  beforeCommit?: () => Promise<void>;
  /** Names the temp file after its writer (see tempPathFor). */
  owner?: string;
}): Promise<CommitResult> {
  const { target } = options;
  const temp = tempPathFor(target, options.owner);
  try {
    await writeDurably(temp, options.content);
    await options.beforeCommit?.();
    try {
      await link(temp, target);
    } catch (error) {
      const code = errorCode(error);
      if (code === 'EEXIST') return { ok: false, reason: 'created_concurrently' };
      if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EOPNOTSUPP' && code !== 'EMLINK') throw error;
      const created = await writeExclusive(target, options.content);
      if (!created) return { ok: false, reason: 'created_concurrently' };
    }
    await syncDirectory(path.dirname(target));
    return { ok: true, snapshot: await statSnapshot(target) };
  } finally {
    await unlink(temp).catch(() => undefined);
  }
}

async function writeDurably(filePath: string, content: Uint8Array, like?: FileSnapshot): Promise<void> {
  const handle = await open(filePath, 'wx');
  try {
    await handle.writeFile(content);
    if (like) {
      await handle.chmod(like.mode & 0o7777);
      // Running as root would otherwise hand the user's file over to root.
      if (process.getuid?.() === 0 && (like.uid !== 0 || like.gid !== 0)) {
        await handle.chown(like.uid, like.gid).catch(() => undefined);
      }
    }
    await handle.sync();
  } finally {
    await handle.close();
  }
}

async function writeExclusive(target: string, content: Uint8Array): Promise<boolean> {
  let handle;
  try {
    handle = await open(target, 'wx');
  } catch (error) {
    if (errorCode(error) === 'EEXIST') return false;
    throw error;
  }
  try {
    await handle.writeFile(content);
    await handle.sync();
  } finally {
    await handle.close();
  }
  return true;
}

// Makes the rename itself survive a power loss; some file systems refuse fsync on a directory, which is harmless.
async function syncDirectory(directory: string): Promise<void> {
  try {
    const handle = await open(directory, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch {
    // Best effort.
  }
}
