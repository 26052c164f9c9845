// Node: spill files of the output budget (TOOL-SPEC C.9, C.11 Bash). Full outputs go to W/.agent/tool-output/<taskId>/,
// a hidden folder Glob and Grep skip, so the model can page through them with ReadFile.
import { lstat, mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { SPILL_ROOT, spillDirectory, spillFileName, spillRelativePath } from '../core/budget.js';
import type { SpillSuffix } from '../core/budget.js';
import type { ContentStore } from '../store/content-store.js';
import { realWorkspaceRoot, resolveInWorkspace } from './workspace.js';

/** Spill directories untouched for this long are deleted when a task starts (C.9 retention). */
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
  await mkdir(resolved.real, { recursive: true });
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

/** Deletes the spill directories of every task whose directory is older than `maxAgeMs`; returns the task ids removed. */
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

/** Input of the `spillOutput` activity (C.9 layer 2, run by the workflow). */
export interface SpillOutputInput {
  /** Absolute workspace root of the run. */
  workspace: string;
  taskId: string;
  turn: number;
  index: number;
  toolName: string;
  callId: string;
  /** `renderEnvelope(raw)` of the result being compressed. */
  rendered: string;
}

/** Activity: writes a layer-2 spill file with the full rendering and returns its workspace-relative path. */
export async function spillOutput(input: SpillOutputInput): Promise<{ path: string }> {
  const root = await realWorkspaceRoot(input.workspace);
  const written = await writeSpillFile(
    {
      root,
      taskId: input.taskId,
      turn: input.turn,
      index: input.index,
      toolName: input.toolName,
      callId: input.callId,
      suffix: 'result',
    },
    input.rendered,
  );
  return { path: written };
}
