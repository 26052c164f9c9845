// Node: puts a workspace's files back as a checkpoint recorded them, touching only what differs (the changes from the
// files as they are now to the checkpoint). Every path is reached through ConfinedDirectory, never by following a
// link: a link the run left where the checkpoint has a directory is removed, not written through, so restoring never
// writes outside the workspace whatever the files now are.
import { constants } from 'node:fs';
import { rename, symlink } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import type { FileChange, TreeEntry } from '../../protocol/checkpoint.js';
import type { ContentStore } from '../../store/content-store.js';
import { ConfinedDirectory, splitParent, withConfinedDirectory } from '../files/confined.js';

/** What a restore did: files written or removed, and entries a checkpoint names but could not hold (too large). */
export interface RestoreReport {
  written: number;
  removed: number;
  notRestored: { path: string; reason: string }[];
}

/**
 * Applies `changes` (compareCheckpoints from the files now to the wanted checkpoint) under the real root `root`:
 * removals first, deepest first, then what the checkpoint has, shallowest first.
 */
export async function restoreChanges(
  store: ContentStore,
  root: string,
  changes: readonly FileChange[],
): Promise<RestoreReport> {
  const report: RestoreReport = { written: 0, removed: 0, notRestored: [] };
  const removals = changes
    .filter((change) => change.change === 'deleted')
    .sort((left, right) => depth(right.path) - depth(left.path));
  for (const change of removals) {
    const { dir, name } = splitParent(change.path);
    await withParent(root, dir, false, async (parent) => parent?.removeTree(name));
    report.removed++;
  }
  const writes = changes
    .filter((change) => change.after !== undefined)
    .sort((left, right) => depth(left.path) - depth(right.path));
  for (const change of writes) {
    const entry = change.after!;
    if (entry.type === 'skipped') {
      report.notRestored.push({ path: change.path, reason: entry.reason ?? 'not recorded' });
      continue;
    }
    await writeEntry(store, root, change.path, entry);
    report.written++;
  }
  return report;
}

async function writeEntry(store: ContentStore, root: string, rel: string, entry: TreeEntry): Promise<void> {
  if (entry.type === 'dir') {
    const directory = await ConfinedDirectory.open(root, rel, { create: true });
    await directory.close();
    return;
  }
  const { dir, name } = splitParent(rel);
  await withParent(root, dir, true, async (parent) => {
    const place = (put: () => Promise<void>) => replacing(parent!, name, put);
    if (entry.type === 'symlink') return place(() => symlink(entry.target ?? '', parent!.entry(name)));
    // A temp file renamed into place: the file is whole or absent, never half written.
    const content = await store.get(entry.key!);
    const temp = `.restore-${randomBytes(6).toString('hex')}`;
    const flags = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL;
    const handle = await parent!.openFile(temp, flags, 0o600);
    try {
      await handle.writeFile(content);
      await handle.chmod(entry.mode ?? 0o644);
    } finally {
      await handle.close();
    }
    return place(() => rename(parent!.entry(temp), parent!.entry(name)));
  });
}

/**
 * Puts an entry at `name`. A file renamed over a file or a link replaces it at once; what cannot be replaced that way
 * (a directory, an existing link for a new link) is removed first: the checkpoint says what this path is.
 */
async function replacing(parent: ConfinedDirectory, name: string, put: () => Promise<void>): Promise<void> {
  try {
    await put();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'EEXIST' && code !== 'EISDIR' && code !== 'ENOTEMPTY') throw error;
    await parent.removeTree(name);
    await put();
  }
}

/** Runs `task` in `dir` (made when `create`); without `create`, a missing parent means there is nothing to do. */
async function withParent<T>(
  root: string,
  dir: string,
  create: boolean,
  task: (parent: ConfinedDirectory | undefined) => Promise<T>,
): Promise<T | undefined> {
  try {
    return await withConfinedDirectory(root, dir, { create }, (parent) => task(parent));
  } catch (error) {
    if (!create && (error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

function depth(rel: string): number {
  return rel.split('/').length;
}
