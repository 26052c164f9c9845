// Node: the traversal shared by Glob and Grep (docs/tools.md §11): regular files only, symlinks neither followed nor
// listed, hidden names and ignored directories skipped unless asked for, bounded by an entry count and a deadline.
import { lstat } from 'node:fs/promises';
import { performance } from 'node:perf_hooks';
import path from 'node:path';
import type { Ignore } from 'ignore';
import type { DirectoryEntry } from '../files/directory-entries.js';
import { listDirectoryEntries } from '../files/directory-entries.js';
import { errorCode } from '../files/errors.js';
import { IGNORED_DIRECTORY_NAMES, isGitignored, isHiddenName } from './ignore-rules.js';

/** Entries a search visits before it stops with `scan_limit` (§11). */
export const MAX_SCAN_ENTRIES = 100_000;
/** Time a search may take before it stops with `timeout` (§11), in milliseconds. */
export const SEARCH_TIMEOUT_MS = 10_000;

/** What to walk and what to keep. */
export interface WalkOptions {
  /** Real workspace root W. */
  root: string;
  /** Real absolute directory the walk starts in (inside W). */
  start: string;
  /** `start` relative to W, "." for W itself. */
  startRel: string;
  includeHidden: boolean;
  includeIgnored: boolean;
  /** The root .gitignore; consulted unless `includeIgnored`. */
  gitignore?: Ignore;
  /** Literal leading directories (relative to `start`) every wanted file lies under. */
  prefix?: readonly string[];
  /** Keeps a file, given its path relative to `start`; every regular file when absent. */
  accept?: (relative: string) => boolean;
  maxEntries?: number;
  /** `performance.now()` value after which the walk stops. */
  deadline?: number;
  signal?: AbortSignal;
}

/** Why a walk ended early. */
export type WalkStop = 'scan_limit' | 'timeout';

/** Files kept by a walk, workspace-relative and sorted by UTF-16 code units. */
export interface WalkResult {
  files: string[];
  /** Regular files looked at (kept or not). */
  filesVisited: number;
  stopped?: WalkStop;
}

interface PendingDirectory {
  absolute: string;
  /** Relative to the walk's start; "" for the start itself. */
  relative: string;
}

/**
 * Walks `start` depth-first in name order, so a walk cut short by `scan_limit` always returns the same files.
 * Filters apply only below `start`: a directory the caller named explicitly is searched even when it is hidden or
 * ignored. For the same reason the .gitignore is not applied at all under a start directory it excludes.
 */
export async function walkFiles(options: WalkOptions): Promise<WalkResult> {
  const maxEntries = options.maxEntries ?? MAX_SCAN_ENTRIES;
  const deadline = options.deadline ?? performance.now() + SEARCH_TIMEOUT_MS;
  const gitignore = effectiveGitignore(options);
  const workspaceRelative = (relative: string) =>
    options.startRel === '.' ? relative : `${options.startRel}/${relative}`;

  const skipDirectory = (name: string, relative: string) =>
    (!options.includeHidden && isHiddenName(name)) ||
    (!options.includeIgnored && IGNORED_DIRECTORY_NAMES.has(name)) ||
    (gitignore !== undefined && isGitignored(gitignore, workspaceRelative(relative), true));
  const skipFile = (name: string, relative: string) =>
    (!options.includeHidden && isHiddenName(name)) ||
    (gitignore !== undefined && isGitignored(gitignore, workspaceRelative(relative), false));

  const files: string[] = [];
  let entries = 0;
  let filesVisited = 0;
  let stopped: WalkStop | undefined;

  // The pattern's literal directories are checked one by one instead of listing their parents.
  let first: PendingDirectory = { absolute: options.start, relative: '' };
  for (const name of options.prefix ?? []) {
    entries++;
    const relative = first.relative === '' ? name : `${first.relative}/${name}`;
    const absolute = path.join(first.absolute, name);
    if (skipDirectory(name, relative) || !(await isRealDirectory(absolute))) return { files, filesVisited };
    first = { absolute, relative };
  }

  const stack: PendingDirectory[] = [first];
  walk: while (stack.length > 0) {
    options.signal?.throwIfAborted();
    if (performance.now() > deadline) {
      stopped = 'timeout';
      break;
    }
    const directory = stack.pop()!;
    let listing: DirectoryEntry[];
    try {
      listing = await listDirectoryEntries(directory.absolute, directory.relative);
    } catch (error) {
      // The start directory's errors are the caller's to report; a subdirectory that vanished or cannot be read
      // is simply not searched.
      if (directory.absolute === options.start) throw error;
      if (isSkippableReadError(error)) continue;
      throw error;
    }
    listing.sort((left, right) => compareCodeUnits(left.name, right.name));
    const subdirectories: PendingDirectory[] = [];
    for (const entry of listing) {
      if (entries >= maxEntries) {
        stopped = 'scan_limit';
        break walk;
      }
      entries++;
      const relative = entry.relative;
      // A symlink is neither a file nor a directory here: it is neither followed nor listed.
      if (entry.kind === 'directory') {
        if (!skipDirectory(entry.name, relative)) {
          subdirectories.push({ absolute: path.join(directory.absolute, entry.name), relative });
        }
      } else if (entry.kind === 'file') {
        if (skipFile(entry.name, relative)) continue;
        filesVisited++;
        if (options.accept === undefined || options.accept(relative)) files.push(workspaceRelative(relative));
      }
    }
    for (let index = subdirectories.length - 1; index >= 0; index--) stack.push(subdirectories[index]!);
  }

  files.sort(compareCodeUnits);
  return { files, filesVisited, ...(stopped ? { stopped } : {}) };
}

function effectiveGitignore(options: WalkOptions): Ignore | undefined {
  if (options.includeIgnored || options.gitignore === undefined) return undefined;
  const startIgnored = options.startRel !== '.' && isGitignored(options.gitignore, options.startRel, true);
  return startIgnored ? undefined : options.gitignore;
}

/** Orders strings by UTF-16 code units, the order §11 prescribes (not locale order). */
export function compareCodeUnits(left: string, right: string): number {
  return left < right ? -1 : left > right ? 1 : 0;
}

async function isRealDirectory(absolute: string): Promise<boolean> {
  try {
    return (await lstat(absolute)).isDirectory();
  } catch (error) {
    if (isSkippableReadError(error)) return false;
    throw error;
  }
}

function isSkippableReadError(error: unknown): boolean {
  const code = errorCode(error);
  return code === 'ENOENT' || code === 'ENOTDIR' || code === 'EACCES' || code === 'EPERM' || code === 'ELOOP';
}
