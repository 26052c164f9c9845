// Node: what changed between two checkpoints. Subtrees are compared by key before anything is read, so only the
// directories on the way to a change are fetched from the store, however large the workspace.
import type { ContentKey } from '../../protocol/content-key.js';
import type { FileChange, TreeEntry } from '../../protocol/checkpoint.js';
import { sameEntry } from '../../protocol/checkpoint.js';
import type { ContentStore } from '../../store/content-store.js';
import type { TreeReader } from './tree-read.js';
import { createTreeReader } from './tree-read.js';

// Trees fetched at once: every directory of a workspace when `from` is null, and the store may be remote.
const READ_CONCURRENCY = 16;

/** A directory to compare: its path ('' for the root) and its tree on each side (null: absent on that side). */
interface PendingDirectory {
  path: string;
  from: ContentKey | null;
  to: ContentKey | null;
}

/**
 * The changes from `from` to `to` (null: an empty workspace), sorted by path. A directory that appears or disappears
 * is a change of its own besides what it holds; an entry whose kind changed (file, link, directory) is deleted and
 * added; a file's new content, mode or size and a link's new target are 'modified'.
 */
export async function compareCheckpoints(
  store: ContentStore,
  from: ContentKey | null,
  to: ContentKey,
): Promise<FileChange[]> {
  const changes: FileChange[] = [];
  const read = createTreeReader(store);
  let level: PendingDirectory[] = from === to ? [] : [{ path: '', from, to }];
  // Breadth first, a level's trees read in bounded batches.
  while (level.length > 0) {
    const next: PendingDirectory[] = [];
    for (let start = 0; start < level.length; start += READ_CONCURRENCY) {
      const batch = level.slice(start, start + READ_CONCURRENCY);
      const trees = await Promise.all(
        batch.map(async (directory) =>
          Promise.all([readEntries(read, directory.from), readEntries(read, directory.to)]),
        ),
      );
      batch.forEach((directory, index) => {
        const [before, after] = trees[index]!;
        compareEntries(directory.path, before, after, changes, next);
      });
    }
    level = next;
  }
  // Stable: where one path is deleted and added (its kind changed), the deletion stays first.
  return changes.sort((left, right) => (left.path < right.path ? -1 : left.path > right.path ? 1 : 0));
}

/** Walks two name-sorted entry lists side by side. */
function compareEntries(
  directory: string,
  before: readonly TreeEntry[],
  after: readonly TreeEntry[],
  changes: FileChange[],
  next: PendingDirectory[],
): void {
  const pathOf = (name: string) => (directory === '' ? name : `${directory}/${name}`);
  const deleted = (entry: TreeEntry) => {
    const path = pathOf(entry.name);
    changes.push({ path, change: 'deleted', before: entry });
    if (entry.type === 'dir') next.push({ path, from: entry.key!, to: null });
  };
  const added = (entry: TreeEntry) => {
    const path = pathOf(entry.name);
    changes.push({ path, change: 'added', after: entry });
    if (entry.type === 'dir') next.push({ path, from: null, to: entry.key! });
  };

  let b = 0;
  let a = 0;
  while (b < before.length || a < after.length) {
    const old = before[b];
    const now = after[a];
    if (!now || (old && old.name < now.name)) {
      deleted(old!);
      b++;
    } else if (!old || now.name < old.name) {
      added(now);
      a++;
    } else {
      b++;
      a++;
      if (old.type === 'dir' && now.type === 'dir') {
        if (old.key !== now.key) next.push({ path: pathOf(now.name), from: old.key!, to: now.key! });
      } else if (kind(old) !== kind(now)) {
        deleted(old);
        added(now);
      } else if (!sameEntry(old, now)) {
        changes.push({ path: pathOf(now.name), change: 'modified', before: old, after: now });
      }
    }
  }
}

/** A file whose content became too large to record (or readable again) is still the same file: 'modified'. */
function kind(entry: TreeEntry): 'dir' | 'symlink' | 'file' {
  return entry.type === 'skipped' ? 'file' : entry.type;
}

async function readEntries(read: TreeReader, key: ContentKey | null): Promise<TreeEntry[]> {
  return key === null ? [] : (await read(key)).entries;
}
