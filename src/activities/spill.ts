// Node: spill files of the output budget (docs/tools.md §9, §11.6 Bash). Full outputs go to
// W/.agent/tool-output/<taskId>/, a hidden folder Glob and Grep skip, so the model can page through them with ReadFile,
// and to the content store, so any worker and `durable-agent output KEY` can read them. The store's copy is collected
// by `durable-agent gc`; the workspace's copy by the retention rule below.
import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { lstat, rename, unlink } from 'node:fs/promises';
import path from 'node:path';
import { SPILL_ROOT, spillDirectory, spillFileName, spillRelativePath } from '../core/output-budget.js';
import type { SpillSuffix } from '../core/output-budget.js';
import type { Envelope } from '../protocol/envelope.js';
import type { ContentStore } from '../store/content-store.js';
import { ConfinedDirectory, isLinkInWorkspace, withConfinedDirectory } from './files/confined.js';
import { realWorkspaceRoot } from './workspace.js';

const EXCLUSIVE_WRITE = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL;

/**
 * Spill directories untouched for this long are deleted (§9 retention) when a task writes its first spill file in the
 * workspace: only spills create these directories, so a workspace that gains no new one keeps no more than it had.
 */
export const SPILL_RETENTION_MS = 7 * 24 * 60 * 60 * 1000;

/** Where one call's spill file goes. */
export interface SpillTarget {
  /** Real (symlink-resolved) workspace root. */
  root: string;
  taskId: string;
  turn: number;
  index: number;
  toolName: string;
  callId: string;
  suffix: SpillSuffix;
}

/**
 * Writes a spill file (creating its directory) and returns its workspace-relative POSIX path. The folder lives in the
 * workspace, so every step is confined (files/confined.ts): a link at `.agent`, `.agent/tool-output`, the task's
 * folder or the file's name is refused or replaced, never followed.
 */
export async function writeSpillFile(target: SpillTarget, content: string): Promise<string> {
  const directoryRel = spillDirectory(target.taskId);
  const fileName = spillFileName(target);
  const created = await withConfinedDirectory(target.root, directoryRel, { create: true }, async (directory) => {
    // The name is unique per call; a retried attempt rewrites the same file with the same content. A temp file made
    // exclusively and renamed over the name replaces whatever entry is there (a planted link or hard link) instead of
    // writing into what it points to.
    const temp = `.${fileName}.${randomBytes(4).toString('hex')}.tmp`;
    const handle = await directory.openFile(temp, EXCLUSIVE_WRITE, 0o644);
    try {
      await handle.writeFile(content, 'utf8');
    } finally {
      await handle.close();
    }
    try {
      await rename(directory.entry(temp), directory.entry(fileName));
    } catch (error) {
      await unlink(directory.entry(temp)).catch(() => undefined);
      throw error;
    }
    return directory.created;
  });
  if (created) {
    // The task's first spill here (a retried attempt finds the folder): older tasks' folders past retention go.
    // Housekeeping only: a failure to prune must not fail the tool call that is spilling.
    await pruneSpillDirectories(target.root, SPILL_RETENTION_MS, { keepTaskId: target.taskId }).catch(() => undefined);
  }
  return spillRelativePath(target.taskId, fileName);
}

/**
 * Writes a spill file and, with a store, the same content to the store: the file is for the model (ReadFile pages
 * through it on the tool host), the key for everyone else (any worker, `durable-agent output KEY`).
 */
export async function spillEverywhere(
  target: SpillTarget,
  content: string,
  store: ContentStore | undefined,
): Promise<{ path: string; key?: string }> {
  const [written, key] = await Promise.all([writeSpillFile(target, content), store?.put(content)]);
  return { path: written, ...(key ? { key } : {}) };
}

/** A budget layer's spill: the workspace file's path, the store key, and why the file could not be written, if so. */
export interface BudgetSpill {
  path: string;
  key?: string;
  unsaved?: string;
}

/**
 * `spillEverywhere` for the output budget's two layers, whose tool has already run: a workspace folder that is a link
 * (or not a folder) leaves the result without its file, said in the envelope (see `withUnsavedSpill`), rather than
 * failing a call that may not be repeatable. The store still gets the content.
 */
export async function spillForBudget(
  target: SpillTarget,
  content: string,
  store: ContentStore | undefined,
): Promise<BudgetSpill> {
  try {
    return await spillEverywhere(target, content, store);
  } catch (error) {
    if (!isLinkInWorkspace(error)) throw error;
    const key = await store?.put(content);
    return {
      path: spillRelativePath(target.taskId, spillFileName(target)),
      ...(key ? { key } : {}),
      unsaved: error.message,
    };
  }
}

/** The compressed envelope of a spill that could not be written: its text and truncation say so, and why. */
export function withUnsavedSpill(envelope: Envelope, spill: BudgetSpill): Envelope {
  if (spill.unsaved === undefined) return envelope;
  const truncation = envelope.data.truncation as Record<string, unknown> | undefined;
  const note = ` The full output was not saved to ${spill.path}: ${spill.unsaved}`;
  return {
    ...envelope,
    text: envelope.text + note,
    data: {
      ...envelope.data,
      ...(truncation ? { truncation: { ...truncation, full_output_unsaved: spill.unsaved } } : {}),
    },
  };
}

/** Deletes every task's spill directory older than `maxAgeMs` except `keepTaskId`'s; returns the names removed. */
export async function pruneSpillDirectories(
  root: string,
  maxAgeMs: number = SPILL_RETENTION_MS,
  options: { now?: number; keepTaskId?: string } = {},
): Promise<string[]> {
  const now = options.now ?? Date.now();
  const realRoot = await realWorkspaceRoot(root);
  let spillRoot: ConfinedDirectory;
  try {
    spillRoot = await ConfinedDirectory.open(realRoot, SPILL_ROOT);
  } catch {
    // Missing, or a link: nothing this layer made to prune.
    return [];
  }
  try {
    const keep = options.keepTaskId === undefined ? undefined : path.basename(spillDirectory(options.keepTaskId));
    const removed: string[] = [];
    for (const name of await spillRoot.list()) {
      if (name === keep) continue;
      const stats = await lstat(spillRoot.entry(name)).catch(() => undefined);
      // Symlinks are never followed: only real directories this layer created are candidates.
      if (!stats?.isDirectory() || now - stats.mtimeMs < maxAgeMs) continue;
      await spillRoot.removeTree(name);
      removed.push(name);
    }
    return removed;
  } finally {
    await spillRoot.close();
  }
}
