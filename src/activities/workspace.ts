// Node: workspace confinement (docs/tools.md §5.1 step 3): every path a tool touches must resolve, symlinks and all,
// inside W.
import { lstat, readlink, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { errorCode } from './files/errors.js';

/** `$HOME` of every command, inside the workspace: tools' caches and dotfiles land there, not in the worker's home. */
export const COMMAND_HOME = '.agent/home';

/** A path that resolved inside the workspace. */
export interface WorkspacePath {
  ok: true;
  /** The lexically normalised absolute path, before symlinks are resolved. */
  absolute: string;
  /** The symlink-resolved absolute path (the deepest existing ancestor's realpath plus the rest). */
  real: string;
  /** `real` relative to the real workspace root, POSIX separators, "." for the root itself. */
  rel: string;
  /** Whether `real` exists (a dangling symlink does not). */
  exists: boolean;
}

/** A path the boundary rejected. */
export interface WorkspacePathError {
  ok: false;
  code: 'ACCESS_DENIED' | 'INVALID_PARAM';
  message: string;
}

// Linux gives up after 40 links (MAXSYMLINKS); following more would only loop.
const MAX_SYMLINK_HOPS = 40;

class SymlinkLoopError extends Error {}

/** Resolves W to its realpath; throws when it is missing or not a directory (a worker misconfiguration, not a model error). */
export async function realWorkspaceRoot(root: string): Promise<string> {
  const real = await realpath(path.resolve(root));
  const info = await stat(real);
  if (!info.isDirectory()) throw new Error(`Workspace root '${root}' is not a directory.`);
  return real;
}

/** Resolves a tool's path parameter against W, rejecting anything that lands outside it. */
export async function resolveInWorkspace(root: string, inputPath: string): Promise<WorkspacePath | WorkspacePathError> {
  if (typeof inputPath !== 'string' || inputPath.length === 0) {
    return { ok: false, code: 'INVALID_PARAM', message: 'Path must be a non-empty string.' };
  }
  if (inputPath.includes('\0')) {
    return { ok: false, code: 'INVALID_PARAM', message: 'Path must not contain a NUL byte.' };
  }
  const outside: WorkspacePathError = {
    ok: false,
    code: 'ACCESS_DENIED',
    message: `Path '${inputPath}' is outside the workspace.`,
  };
  // The shell would expand `~` to $HOME, which is never the workspace; refuse rather than guess.
  if (inputPath.startsWith('~')) return outside;

  const lexicalRoot = path.resolve(root);
  const realRoot = await realpath(lexicalRoot);
  const absolute = path.resolve(lexicalRoot, inputPath);
  // An absolute path must name W itself (either spelling of it), not merely reach W through an outside symlink.
  if (path.isAbsolute(inputPath) && !isWithin(lexicalRoot, absolute) && !isWithin(realRoot, absolute)) return outside;

  let real: string;
  try {
    real = await resolveExisting(absolute, 0);
  } catch (error) {
    if (error instanceof SymlinkLoopError) {
      return {
        ok: false,
        code: 'INVALID_PARAM',
        message: `Path '${inputPath}' has too many levels of symbolic links.`,
      };
    }
    throw error;
  }
  if (!isWithin(realRoot, real)) return outside;

  const relative = path.relative(realRoot, real);
  return {
    ok: true,
    absolute,
    real,
    rel: relative === '' ? '.' : relative.split(path.sep).join('/'),
    exists: await pathExists(real),
  };
}

/** True when `candidate` is `root` or lies below it. */
export function isWithin(root: string, candidate: string): boolean {
  if (candidate === root) return true;
  const prefix = root.endsWith(path.sep) ? root : root + path.sep;
  return candidate.startsWith(prefix);
}

/**
 * realpath() of the deepest existing ancestor plus the missing rest. A dangling symlink on the way is followed by hand:
 * writing through it would create its target, so the target, not the link, is what must lie inside W.
 */
async function resolveExisting(absolute: string, hops: number): Promise<string> {
  if (hops > MAX_SYMLINK_HOPS) throw new SymlinkLoopError();
  try {
    return await realpath(absolute);
  } catch (error) {
    const code = errorCode(error);
    if (code === 'ELOOP') throw new SymlinkLoopError();
    if (code !== 'ENOENT' && code !== 'ENOTDIR' && code !== 'EACCES') throw error;
  }
  const parent = path.dirname(absolute);
  if (parent === absolute) return absolute;
  const realParent = await resolveExisting(parent, hops);
  const candidate = path.join(realParent, path.basename(absolute));
  try {
    const info = await lstat(candidate);
    if (info.isSymbolicLink()) {
      const target = await readlink(candidate);
      return await resolveExisting(path.resolve(realParent, target), hops + 1);
    }
  } catch (error) {
    if (error instanceof SymlinkLoopError) throw error;
    // Missing, or not reachable: the executor's own stat reports the precise error.
  }
  return candidate;
}

async function pathExists(real: string): Promise<boolean> {
  try {
    await stat(real);
    return true;
  } catch {
    return false;
  }
}
