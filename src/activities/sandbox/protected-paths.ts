// Node: the workspace's protected paths as a sandboxed command finds them. Those that exist are mounted read-only inside
// the sandbox (every `.git`, the worker's `.agent`, what the protected list names), so an auto-allowed build runner
// cannot plant `core.fsmonitor` or a hook that the operator's next `git status` would run outside any sandbox. A
// repository a command creates cannot have been mounted: it is moved out of the workspace into the worker's data
// directory after the command, and the envelope says where.
import { cp, lstat, mkdir, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { DEFAULT_WRITE_PROTECTED, fileWriteRule } from '../../core/permissions/file-rules.js';
import type { EntryKind } from '../files/directory-entries.js';
import { listDirectoryEntries } from '../files/directory-entries.js';

/** Directories the walk does not enter: dependency and build trees, large and never the operator's repository. */
const SKIPPED_DIRECTORIES = new Set([
  'node_modules',
  '.venv',
  'venv',
  '__pycache__',
  '.tox',
  '.mypy_cache',
  '.pytest_cache',
  '.gradle',
  '.next',
  'target',
]);
/** How many directory entries one walk looks at: a bound on its cost per command, not a security limit (see below). */
export const PROTECTED_WALK_MAX_ENTRIES = 20_000;
const MAX_DEPTH = 12;

/** The worker's own directory in the workspace (spill files). */
const AGENT_DIRECTORY = '.agent';

/** What a command starts with: the protected paths to mount read-only, and the repositories that already exist. */
export interface ProtectedScan {
  /** Existing protected paths, absolute, not links: each is mounted read-only whole. */
  readOnly: string[];
  /** Every `.git` entry, absolute, links included. */
  repositories: Set<string>;
}

/**
 * The workspace's protected paths: the top-level `.git` and `.agent` always, then (breadth first, within
 * PROTECTED_WALK_MAX_ENTRIES entries and MAX_DEPTH levels, links never followed) every nested `.git` and every entry
 * `writeProtected` names. A protected directory is mounted whole and not walked into.
 */
export async function scanProtectedPaths(
  root: string,
  writeProtected: readonly string[] = DEFAULT_WRITE_PROTECTED,
): Promise<ProtectedScan> {
  const readOnly = new Set<string>();
  const found = new Set<string>();
  for (const name of ['.git', AGENT_DIRECTORY]) {
    const stats = await lstat(path.join(root, name)).catch(() => undefined);
    if (stats && name === '.git') found.add(path.join(root, name));
    if (stats && !stats.isSymbolicLink()) readOnly.add(path.join(root, name));
  }
  await walk(root, (rel, kind) => {
    const absolute = path.join(root, ...rel.split('/'));
    const repository = path.posix.basename(rel) === '.git';
    if (repository) found.add(absolute);
    // A link is not mounted: what it points to inside the workspace is an entry of its own.
    if (kind === 'link') return repository;
    const isProtected =
      repository ||
      isProtectedPath(rel, writeProtected) ||
      (kind === 'directory' && isProtectedPath(`${rel}/-`, writeProtected));
    if (isProtected) readOnly.add(absolute);
    return isProtected;
  });
  return { readOnly: [...readOnly].sort(), repositories: found };
}

/** The `.git` entries of the workspace, links included (top-level always, nested ones within the walk's bounds). */
export async function repositories(root: string): Promise<Set<string>> {
  return (await scanProtectedPaths(root, [])).repositories;
}

/** A repository a command created, moved out of the workspace. */
export interface MovedRepository {
  /** Workspace-relative, where the command created it. */
  path: string;
  /** Where it is now, in the worker's data directory. */
  moved_to: string;
}

/**
 * Moves every `.git` that exists now and did not before the command (`before`) into
 * `<dataDir>/created-repositories/<callId>/<its workspace-relative path>`.
 */
export async function moveCreatedRepositories(
  root: string,
  before: ReadonlySet<string>,
  destination: string,
): Promise<MovedRepository[]> {
  const moved: MovedRepository[] = [];
  for (const entry of await repositories(root)) {
    if (before.has(entry)) continue;
    const rel = path.relative(root, entry).split(path.sep).join('/');
    const target = path.join(destination, ...rel.split('/'));
    await mkdir(path.dirname(target), { recursive: true, mode: 0o700 });
    try {
      await rename(entry, target);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EXDEV') throw error;
      // The data directory is on another filesystem: copy (links as links), then remove the original.
      await cp(entry, target, { recursive: true, verbatimSymlinks: true, errorOnExist: true, force: false });
      await rm(entry, { recursive: true, force: true });
    }
    moved.push({ path: rel, moved_to: target });
  }
  return moved;
}

function isProtectedPath(rel: string, writeProtected: readonly string[]): boolean {
  return fileWriteRule(rel, { writeProtected, writeAutoAllow: ['**'] }).rule === 'protected_path';
}

/**
 * Breadth-first over the workspace without following links; `visit(rel, kind)` answers whether the entry is taken
 * whole (then it is not entered). Stops after PROTECTED_WALK_MAX_ENTRIES entries.
 */
async function walk(root: string, visit: (rel: string, kind: EntryKind) => boolean): Promise<void> {
  let level: string[] = [''];
  let seen = 0;
  for (let depth = 0; depth < MAX_DEPTH && level.length > 0; depth++) {
    const next: string[] = [];
    for (const directory of level) {
      const entries = await listDirectoryEntries(path.join(root, ...directory.split('/')), directory).catch(() => []);
      for (const entry of entries) {
        if (++seen > PROTECTED_WALK_MAX_ENTRIES) return;
        if (visit(entry.relative, entry.kind)) continue;
        if (entry.kind === 'directory' && !SKIPPED_DIRECTORIES.has(entry.name)) next.push(entry.relative);
      }
    }
    level = next;
  }
}
