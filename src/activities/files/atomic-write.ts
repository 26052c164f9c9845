// Node: atomic commit of docs/tools.md §8: write a temp file beside the target, fsync, then rename (or link, for a new
// file). Every step names its file through the target's opened directory (confined.ts), so a link planted on the way,
// or at the temp file's name, never takes a write outside the workspace.
import { createHash, randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { link, lstat, rename, unlink } from 'node:fs/promises';
import type { ConfinedDirectory } from './confined.js';
import { errorCode } from './errors.js';
import { sameVersion, snapshotOf } from './snapshot.js';
import type { FileSnapshot } from './snapshot.js';

/** The outcome of a commit: the new file's snapshot, or the CONFLICT reason that stopped it. */
export type CommitResult =
  { ok: true; snapshot: FileSnapshot } | { ok: false; reason: 'modified_during_write' | 'created_concurrently' };

/** A file to commit: its opened directory and its name there. */
export interface CommitTarget {
  directory: ConfinedDirectory;
  name: string;
}

// Keeps the temp name under NAME_MAX (255) however long the target's name is.
const MAX_NAME_IN_TEMP = 150;
// O_EXCL never follows a link at the name, and a new file is never anyone else's.
const EXCLUSIVE_WRITE = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL;

/**
 * `.<name>.agent-<owner><rand>.tmp` beside the target, so the rename never crosses a file system. `owner` (the write's
 * activity key) gives the first half of the hex: a retry can find and remove what a killed attempt left.
 */
export function tempNameFor(name: string, owner?: string): string {
  const prefix = owner === undefined ? randomBytes(3).toString('hex') : ownerTag(owner);
  return `.${name.slice(0, MAX_NAME_IN_TEMP)}.agent-${prefix}${randomBytes(3).toString('hex')}.tmp`;
}

/**
 * Removes the temp files an earlier attempt of `owner` left beside the target: a worker killed between writing the
 * temp file and the rename never reaches its cleanup. Returns how many were removed.
 */
export async function removeLeftoverTemps(target: CommitTarget, owner: string): Promise<number> {
  const start = `.${target.name.slice(0, MAX_NAME_IN_TEMP)}.agent-${ownerTag(owner)}`;
  let names: string[];
  try {
    names = await target.directory.list();
  } catch {
    return 0;
  }
  const leftovers = names.filter(
    (name) => name.startsWith(start) && /^[0-9a-f]{6}\.tmp$/.test(name.slice(start.length)),
  );
  // unlink removes a link planted under such a name, never what it points to.
  await Promise.all(leftovers.map((name) => unlink(target.directory.entry(name)).catch(() => undefined)));
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
export async function replaceFileAtomically(
  options: CommitTarget & {
    content: Uint8Array;
    expected: FileSnapshot;
    beforeCommit?: () => Promise<void>;
    /** Names the temp file after its writer (see tempNameFor). */
    owner?: string;
  },
): Promise<CommitResult> {
  const { directory, name, expected } = options;
  const tempName = tempNameFor(name, options.owner);
  const temp = directory.entry(tempName);
  let committed = false;
  try {
    await writeDurably(directory, tempName, options.content, expected);
    await options.beforeCommit?.();
    // The window between this stat and the rename is as small as it can be without OS support for compare-and-swap.
    // lstat: a link swapped in for the file is a different version, not a way to reach another file.
    let current: FileSnapshot | undefined;
    try {
      current = snapshotOf(await lstat(directory.entry(name), { bigint: true }));
    } catch (error) {
      if (errorCode(error) !== 'ENOENT') throw error;
    }
    if (!current || !sameVersion(current, expected)) return { ok: false, reason: 'modified_during_write' };
    // rename replaces the directory entry itself, whatever it is now; it never writes through it.
    await rename(temp, directory.entry(name));
    committed = true;
    await directory.sync();
    return { ok: true, snapshot: await committedSnapshot(options) };
  } finally {
    if (!committed) await unlink(temp).catch(() => undefined);
  }
}

/**
 * Creates a new file, failing if one appears first. The bytes go to a temp file and are hard-linked into place, which
 * is both exclusive and atomic; file systems without hard links fall back to an exclusive open.
 */
export async function createFileExclusively(
  options: CommitTarget & {
    content: Uint8Array;
    beforeCommit?: () => Promise<void>;
    /** Names the temp file after its writer (see tempNameFor). */
    owner?: string;
  },
): Promise<CommitResult> {
  const { directory, name } = options;
  const tempName = tempNameFor(name, options.owner);
  const temp = directory.entry(tempName);
  try {
    await writeDurably(directory, tempName, options.content);
    await options.beforeCommit?.();
    try {
      // link(2) neither follows a link at the new name (EEXIST) nor at the old one.
      await link(temp, directory.entry(name));
    } catch (error) {
      const code = errorCode(error);
      if (code === 'EEXIST') return { ok: false, reason: 'created_concurrently' };
      if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EOPNOTSUPP' && code !== 'EMLINK') throw error;
      const created = await writeExclusive(directory, name, options.content);
      if (!created) return { ok: false, reason: 'created_concurrently' };
    }
    await directory.sync();
    return { ok: true, snapshot: await committedSnapshot(options) };
  } finally {
    await unlink(temp).catch(() => undefined);
  }
}

async function committedSnapshot(target: CommitTarget): Promise<FileSnapshot> {
  return snapshotOf(await lstat(target.directory.entry(target.name), { bigint: true }));
}

async function writeDurably(
  directory: ConfinedDirectory,
  name: string,
  content: Uint8Array,
  like?: FileSnapshot,
): Promise<void> {
  const handle = await directory.openFile(name, EXCLUSIVE_WRITE, 0o666);
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

async function writeExclusive(directory: ConfinedDirectory, name: string, content: Uint8Array): Promise<boolean> {
  let handle;
  try {
    handle = await directory.openFile(name, EXCLUSIVE_WRITE, 0o666);
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
