// Node: the workspace's files set back to a checkpoint of its run (`rewind`, `fork --in-place`, `fork --workspace`).
// The files as they are now are checkpointed first, so what a restore replaces can itself be brought back; a workspace
// that changed since the run's last checkpoint (someone else's edit) is refused unless the operator says overwrite.
import type { ContentKey } from '../protocol/content-key.js';
import type { FileChange } from '../protocol/checkpoint.js';
import { fileChangesOf } from '../protocol/checkpoint.js';
import { visibleText } from '../core/terminal-text.js';
import { createCheckpointer } from '../activities/checkpoint/checkpointer.js';
import { compareCheckpoints } from '../activities/checkpoint/compare.js';
import type { RestoreReport } from '../activities/checkpoint/restore.js';
import { restoreChanges } from '../activities/checkpoint/restore.js';
import type { ContentStore } from '../store/content-store.js';

/** What setting the files back found and did. */
export type RestoreOutcome =
  | { restored: true; now: ContentKey; report: RestoreReport }
  /** The files changed since the run's last checkpoint; nothing was written. */
  | { restored: false; now: ContentKey; outside: FileChange[] };

/**
 * Sets the files under the real root `root` to `target`. `last` is the run's last checkpoint: files that differ from
 * it were changed outside the run, and are kept unless `force`.
 */
export async function restoreWorkspace(
  store: ContentStore,
  root: string,
  options: { target: ContentKey | null; last: ContentKey | null; ignore?: string[]; force: boolean },
): Promise<RestoreOutcome> {
  const now = (await createCheckpointer(store).checkpoint(root, options.ignore ? { ignore: options.ignore } : {})).key;
  if (!options.force && options.last !== null && now !== options.last) {
    // Equal files may be stored under another key (a directory stored as a delta by the worker, whole here).
    const outside = await compareCheckpoints(store, options.last, now);
    if (outside.length > 0) return { restored: false, now, outside };
  }
  if (options.target === null) return { restored: true, now, report: { written: 0, removed: 0, notRestored: [] } };
  const changes = await compareCheckpoints(store, now, options.target);
  return { restored: true, now, report: await restoreChanges(store, root, changes) };
}

const CHANGE_LETTER = { added: 'A', modified: 'M', deleted: 'D' } as const;

/** One line a changed file, `A path` / `M path` / `D path` (escaped: the names are the run's), at most `limit`. */
export function changeLines(
  changes: readonly FileChange[],
  options: { indent?: string; limit?: number } = {},
): string[] {
  const files = fileChangesOf(changes);
  const shown = files.slice(0, options.limit ?? files.length);
  const lines = shown.map(
    (change) => `${options.indent ?? ''}${CHANGE_LETTER[change.change]} ${visibleText(change.path)}`,
  );
  if (files.length > shown.length) lines.push(`${options.indent ?? ''}… ${files.length - shown.length} more`);
  return lines;
}
