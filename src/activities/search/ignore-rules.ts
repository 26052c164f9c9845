// Node: which entries the search tools skip by default (docs/tools.md §11.4 Glob traversal): hidden names, build and
// vendor directories, and whatever the workspace's root .gitignore lists.
import { lstat, readFile } from 'node:fs/promises';
import path from 'node:path';
import ignore from 'ignore';
import type { Ignore } from 'ignore';

/** Directory names skipped unless `include_ignored` (§11). */
export const IGNORED_DIRECTORY_NAMES: ReadonlySet<string> = new Set([
  '.git',
  '.hg',
  '.svn',
  '.mypy_cache',
  '.pytest_cache',
  '.ruff_cache',
  '.tox',
  '.venv',
  '.idea',
  '.vscode',
  '__pycache__',
  'build',
  'dist',
  'node_modules',
  'target',
  'venv',
  '.agent',
  'coverage',
  '.next',
  'out',
]);

/** True for a name the traversal treats as hidden. */
export function isHiddenName(name: string): boolean {
  return name.startsWith('.');
}

/**
 * The rules of `W/.gitignore`, or undefined when there is none. Only a regular file counts: a symlinked .gitignore
 * could point outside the workspace. Matching is case-sensitive, as git's is on Linux.
 */
export async function loadRootGitignore(root: string): Promise<Ignore | undefined> {
  const file = path.join(root, '.gitignore');
  try {
    const info = await lstat(file);
    if (!info.isFile()) return undefined;
    return ignore({ ignorecase: false }).add(await readFile(file, 'utf8'));
  } catch {
    // Missing or unreadable: nothing is ignored by it.
    return undefined;
  }
}

/**
 * Whether the root .gitignore excludes a workspace-relative path (`isDirectory` adds the trailing slash git uses for
 * directory-only rules). Names the ignore package refuses as non-relative (such as "...") are never ignored.
 */
export function isGitignored(rules: Ignore, workspaceRelative: string, isDirectory: boolean): boolean {
  try {
    return rules.ignores(isDirectory ? `${workspaceRelative}/` : workspaceRelative);
  } catch {
    return false;
  }
}
