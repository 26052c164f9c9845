// Node: spill files of the output budget (TOOL-SPEC C.9, C.11 Bash). Full outputs go to W/.agent/tool-output/<taskId>/,
// a hidden folder Glob and Grep skip, so the model can page through them with ReadFile, and to the content store, so
// any worker and `durable-agent output KEY` can read them. The store's copy is collected by `durable-agent gc`; the
// workspace's copy by the retention rule below.
import { lstat, mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { SPILL_ROOT, spillDirectory, spillFileName, spillRelativePath } from '../core/budget.js';
import type { SpillSuffix } from '../core/budget.js';
import type { ContentStore } from '../store/content-store.js';
import { realWorkspaceRoot, resolveInWorkspace } from './workspace.js';

/**
 * Spill directories untouched for this long are deleted (C.9 retention) when a task writes its first spill file in the
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

/** Writes a spill file (creating its directory) and returns its workspace-relative POSIX path. */
export async function writeSpillFile(target: SpillTarget, content: string): Promise<string> {
  const directory = spillDirectory(target.taskId);
  // The folder lives in the workspace, so a symlink planted there could point anywhere: refuse to write through one.
  const resolved = await resolveInWorkspace(target.root, directory);
  if (!resolved.ok) throw new Error(`Spill directory '${directory}' is not inside the workspace: ${resolved.message}`);
  const created = await mkdir(resolved.real, { recursive: true });
  if (created !== undefined) {
    // The task's first spill here (a retried attempt finds the folder): older tasks' folders past retention go.
    // Housekeeping only: a failure to prune must not fail the tool call that is spilling.
    await pruneSpillDirectories(target.root, SPILL_RETENTION_MS, { keepTaskId: target.taskId }).catch(() => undefined);
  }
  const fileName = spillFileName(target);
  // The name is unique per call; a retried attempt rewrites the same file with the same content.
  await writeFile(path.join(resolved.real, fileName), content, 'utf8');
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

/** Deletes every task's spill directory older than `maxAgeMs` except `keepTaskId`'s; returns the names removed. */
export async function pruneSpillDirectories(
  root: string,
  maxAgeMs: number = SPILL_RETENTION_MS,
  options: { now?: number; keepTaskId?: string } = {},
): Promise<string[]> {
  const now = options.now ?? Date.now();
  const realRoot = await realWorkspaceRoot(root);
  const spillRoot = await resolveInWorkspace(realRoot, SPILL_ROOT);
  if (!spillRoot.ok || !spillRoot.exists) return [];
  let entries: string[];
  try {
    entries = await readdir(spillRoot.real);
  } catch {
    return [];
  }
  const keep = options.keepTaskId === undefined ? undefined : path.basename(spillDirectory(options.keepTaskId));
  const removed: string[] = [];
  for (const name of entries) {
    if (name === keep) continue;
    const entry = path.join(spillRoot.real, name);
    const stats = await lstat(entry).catch(() => undefined);
    // Symlinks are never followed: only real directories this layer created are candidates.
    if (!stats?.isDirectory() || now - stats.mtimeMs < maxAgeMs) continue;
    await rm(entry, { recursive: true, force: true });
    removed.push(name);
  }
  return removed;
}
