// Node: where a shell word points, checked against the workspace with symlinks resolved (docs/tools.md §5.1 step 3
// rules).
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { isWithin, resolveInWorkspace } from '../workspace.js';
import type { ShellWord } from './words.js';

/** A word that names a path inside W. */
export interface InsidePath {
  kind: 'inside';
  /** Workspace-relative path ("." for W); for a glob, of its literal directory prefix. */
  rel: string;
  real: string;
  exists: boolean;
  directory: boolean;
  /** For a glob: the pattern after the literal directory prefix (`*.ts` of `src/*.ts`). */
  globRest?: string;
}

/** A word that names a path outside W. */
export interface OutsidePath {
  kind: 'outside';
  /** The path as the shell would see it (after `~` expansion). */
  shown: string;
}

/** A word whose target cannot be known before the command runs. */
export interface UnknownPath {
  kind: 'unknown';
  why: 'dynamic' | 'unknown_cwd' | 'unresolvable';
}

/** A word that names a path in the command's own HOME (outside W, its scratch space: caches and dotfiles). */
export interface ScratchPath {
  kind: 'scratch';
  /** Absolute path, symlinks resolved where they exist. */
  real: string;
  exists: boolean;
  directory: boolean;
}

/** The outcome of checking one path word. */
export type PathResolution = InsidePath | OutsidePath | UnknownPath | ScratchPath | { kind: 'none' };

/**
 * Device files that are no place at all: reading gives nothing or noise, writing discards or reaches the command's
 * own streams. An argument naming one (`diff a.txt /dev/null`) is not a path outside the workspace.
 */
const STANDARD_DEVICES: ReadonlySet<string> = new Set([
  '/dev/null',
  '/dev/zero',
  '/dev/random',
  '/dev/urandom',
  '/dev/stdin',
  '/dev/stdout',
  '/dev/stderr',
]);

/** Whether `value` names a standard device or one of the command's own descriptors (`/dev/fd/3`). */
export function isStandardDevice(value: string): boolean {
  return STANDARD_DEVICES.has(value) || /^\/dev\/fd\/\d+$/.test(value);
}

/** Splits a glob into its literal directory prefix and the rest: `src/**\/*.ts` → [`src`, `**\/*.ts`]. */
export function globPrefix(value: string): { directory: string; rest: string } {
  const firstGlob = value.search(/[*?[{]/);
  const literal = firstGlob === -1 ? value : value.slice(0, firstGlob);
  const slash = literal.lastIndexOf('/');
  if (slash === -1) return { directory: '.', rest: value };
  return { directory: slash === 0 ? '/' : value.slice(0, slash), rest: value.slice(slash + 1) };
}

/**
 * Resolves a word against the working directory `cwd` (absolute, real; undefined when it cannot be known) and checks
 * it against the workspace `root` with `resolveInWorkspace`. A glob is checked by its literal directory prefix. A path
 * in the command's `home` (outside W) is its scratch space, checked the same way against that directory instead.
 */
export async function resolveShellPath(
  root: string,
  cwd: string | undefined,
  word: ShellWord,
  home?: string,
): Promise<PathResolution> {
  const value = word.value;
  if (value === undefined) return { kind: 'unknown', why: 'dynamic' };
  if (value === '' || isStandardDevice(value)) return { kind: 'none' };
  const { directory, rest } = word.glob ? globPrefix(value) : { directory: value, rest: undefined };
  // `~user` (the plain `~` was already expanded): another user's home is never the workspace.
  if (directory.startsWith('~')) return { kind: 'outside', shown: value };
  let absolute: string;
  if (path.isAbsolute(directory)) absolute = path.resolve(directory);
  else if (cwd === undefined) return { kind: 'unknown', why: 'unknown_cwd' };
  else absolute = path.resolve(cwd, directory);

  if (home !== undefined && isWithin(path.resolve(home), absolute) && !isWithin(root, absolute)) {
    return (await resolveInHome(home, absolute)) ?? { kind: 'outside', shown: value };
  }
  const resolved = await resolveInWorkspace(root, absolute);
  if (!resolved.ok) {
    return resolved.code === 'ACCESS_DENIED'
      ? { kind: 'outside', shown: value }
      : { kind: 'unknown', why: 'unresolvable' };
  }
  let isDirectory = false;
  if (resolved.exists) {
    try {
      isDirectory = (await stat(resolved.real)).isDirectory();
    } catch {
      isDirectory = false;
    }
  }
  return {
    kind: 'inside',
    rel: resolved.rel,
    real: resolved.real,
    exists: resolved.exists,
    directory: isDirectory,
    ...(rest !== undefined ? { globRest: rest } : {}),
  };
}

/** The workspace-relative path the file write rules see: the glob pattern is kept, so `*.pem` still looks protected. */
export function ruleTarget(resolution: InsidePath): string {
  if (resolution.globRest === undefined) return resolution.rel;
  return resolution.rel === '.' ? resolution.globRest : `${resolution.rel}/${resolution.globRest}`;
}

/** A path in the command's HOME, symlinks resolved: a link planted there that leads out of it is no scratch space. */
async function resolveInHome(home: string, absolute: string): Promise<ScratchPath | undefined> {
  let resolved: Awaited<ReturnType<typeof resolveInWorkspace>>;
  try {
    resolved = await resolveInWorkspace(home, absolute);
  } catch {
    // No HOME yet (the Bash executor makes it before its first command): nothing below it exists, so nothing can lead
    // out of it.
    return { kind: 'scratch', real: absolute, exists: false, directory: false };
  }
  if (!resolved.ok) return undefined;
  return { kind: 'scratch', real: resolved.real, exists: resolved.exists, directory: await isDirectory(resolved.real) };
}

async function isDirectory(real: string): Promise<boolean> {
  try {
    return (await stat(real)).isDirectory();
  } catch {
    return false;
  }
}
