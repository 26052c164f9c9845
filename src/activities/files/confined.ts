// Node: the worker's own file operations under the workspace (spill files, atomic-write temp files, the files the
// tools read and write), done so that no link the model planted can take them outside it. A directory is reached one
// component at a time from the real workspace root (for the commands' HOME, executors/command-home.ts, from the file
// system's root), each opened with O_NOFOLLOW; every later operation names its entry through
// `/proc/self/fd/<fd of the opened directory>/<name>`, which is openat(2) by another spelling: the path above the
// directory is never resolved again, so swapping a component for a link after the walk changes nothing. Where /proc is
// missing, each component is opened by path and the opened descriptor's dev/ino compared with the lstat of what was
// checked (a narrower race remains there; Linux is where the worker runs its command sandbox).
import { constants, existsSync } from 'node:fs';
import { lstat, mkdir, open, readdir, rmdir, unlink } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { errorCode } from './errors.js';

const PROC_FD = '/proc/self/fd';
const DIRECTORY_FLAGS = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW;

/** A path component under the workspace that is a link (or not a directory) where the worker needs a real one. */
export class LinkInWorkspaceError extends Error {
  readonly code = 'ELINKINPATH';
  constructor(
    /** Workspace-relative path of the offending component. */
    readonly rel: string,
    readonly why: 'symlink' | 'not_directory' | 'changed',
  ) {
    super(
      why === 'symlink'
        ? `'${rel}' is a symbolic link; the worker does not follow links on the paths it writes under the workspace.`
        : why === 'not_directory'
          ? `'${rel}' is not a directory.`
          : `'${rel}' changed while the worker opened it.`,
    );
  }
}

/** True for the refusal above. */
export function isLinkInWorkspace(error: unknown): error is LinkInWorkspaceError {
  return error instanceof LinkInWorkspaceError;
}

let procAvailable: boolean | undefined;
function useProc(): boolean {
  procAvailable ??= existsSync(PROC_FD);
  return procAvailable;
}

/** An opened directory under the workspace; entries are named through its descriptor, never through its path. */
export class ConfinedDirectory {
  private constructor(
    private readonly handle: FileHandle,
    /** Workspace-relative POSIX path, "." for the root. */
    readonly rel: string,
    /** Absolute path the directory had when it was walked (the fallback without /proc names entries by it). */
    private readonly walkedPath: string,
    /** Whether the walk created the last component. */
    readonly created: boolean,
  ) {}

  /**
   * Opens `rel` (POSIX, relative, no `..`) below the real root `root`, refusing a link at any component; with
   * `create`, missing components are made (with `mode`, by default 0o777 less the umask, as `mkdir -p` would).
   */
  static async open(
    root: string,
    rel: string,
    options: { create?: boolean; mode?: number } = {},
  ): Promise<ConfinedDirectory> {
    const segments = splitRelative(rel);
    let handle = await open(root, constants.O_RDONLY | constants.O_DIRECTORY);
    let current = new ConfinedDirectory(handle, '.', root, false);
    try {
      for (const [index, segment] of segments.entries()) {
        const childRel = segments.slice(0, index + 1).join('/');
        const childPath = path.join(current.walkedPath, segment);
        let created = false;
        let child: FileHandle;
        try {
          child = await current.openEntry(segment, childRel);
        } catch (error) {
          if (errorCode(error) !== 'ENOENT' || !options.create) throw error;
          try {
            // mkdir never follows a link at its last component: a planted link makes it EEXIST, then ELOOP below.
            await mkdir(current.entry(segment), options.mode);
            created = true;
          } catch (mkdirError) {
            if (errorCode(mkdirError) !== 'EEXIST') throw mkdirError;
          }
          child = await current.openEntry(segment, childRel);
        }
        await handle.close();
        handle = child;
        current = new ConfinedDirectory(child, childRel, childPath, created);
      }
      return current;
    } catch (error) {
      await handle.close().catch(() => undefined);
      throw error;
    }
  }

  /** A path naming `name` in this directory (one component: no `/`, not `.` or `..`). */
  entry(name: string): string {
    if (name === '' || name === '.' || name === '..' || name.includes('/')) {
      throw new Error(`Invalid entry name '${name}'.`);
    }
    return useProc() ? `${PROC_FD}/${this.handle.fd}/${name}` : path.join(this.walkedPath, name);
  }

  /** The entry's workspace-relative path, for messages. */
  relOf(name: string): string {
    return this.rel === '.' ? name : `${this.rel}/${name}`;
  }

  /** A path naming this directory itself (for fsync and readdir). */
  self(): string {
    return useProc() ? `${PROC_FD}/${this.handle.fd}` : this.walkedPath;
  }

  /** Opens a file entry without following a link at it; anything else on the way is already fixed by the walk. */
  async openFile(name: string, flags: number, mode?: number): Promise<FileHandle> {
    try {
      const handle = await open(this.entry(name), flags | constants.O_NOFOLLOW, mode);
      await this.checkFallback(handle, name);
      return handle;
    } catch (error) {
      if (errorCode(error) === 'ELOOP') throw new LinkInWorkspaceError(this.relOf(name), 'symlink');
      throw error;
    }
  }

  /** The entry names of this directory. */
  list(): Promise<string[]> {
    return readdir(this.self());
  }

  /** Removes `name` and, for a directory, everything below it, never following a link (a link is removed itself). */
  async removeTree(name: string): Promise<void> {
    try {
      await unlink(this.entry(name));
      return;
    } catch (error) {
      const code = errorCode(error);
      if (code === 'ENOENT') return;
      if (code !== 'EISDIR' && code !== 'EPERM') throw error;
    }
    const child = await ConfinedDirectory.open(this.self(), name);
    try {
      for (const entry of await child.list()) await child.removeTree(entry);
    } finally {
      await child.close();
    }
    await rmdir(this.entry(name));
  }

  /** fsync of the directory, so a rename in it survives a power loss; some file systems refuse it, harmlessly. */
  async sync(): Promise<void> {
    await this.handle.sync().catch(() => undefined);
  }

  async close(): Promise<void> {
    await this.handle.close();
  }

  private async openEntry(segment: string, childRel: string): Promise<FileHandle> {
    let child: FileHandle;
    try {
      child = await open(this.entry(segment), DIRECTORY_FLAGS);
    } catch (error) {
      const code = errorCode(error);
      if (code === 'ELOOP') throw new LinkInWorkspaceError(childRel, 'symlink');
      if (code === 'ENOTDIR') {
        const info = await lstat(this.entry(segment)).catch(() => undefined);
        throw new LinkInWorkspaceError(childRel, info?.isSymbolicLink() ? 'symlink' : 'not_directory');
      }
      throw error;
    }
    try {
      await this.checkFallback(child, segment);
    } catch (error) {
      await child.close();
      throw error;
    }
    return child;
  }

  // Without /proc the entry was opened by path: it must still be what an lstat of that path shows, a non-link.
  private async checkFallback(handle: FileHandle, name: string): Promise<void> {
    if (useProc()) return;
    const [opened, checked] = await Promise.all([
      handle.stat({ bigint: true }),
      lstat(path.join(this.walkedPath, name), { bigint: true }),
    ]);
    if (checked.isSymbolicLink()) throw new LinkInWorkspaceError(this.relOf(name), 'symlink');
    if (opened.dev !== checked.dev || opened.ino !== checked.ino) {
      throw new LinkInWorkspaceError(this.relOf(name), 'changed');
    }
  }
}

/** Runs `task` with `rel`'s directory opened under `root`, closing it afterwards. */
export async function withConfinedDirectory<T>(
  root: string,
  rel: string,
  options: { create?: boolean; mode?: number },
  task: (directory: ConfinedDirectory) => Promise<T>,
): Promise<T> {
  const directory = await ConfinedDirectory.open(root, rel, options);
  try {
    return await task(directory);
  } finally {
    await directory.close();
  }
}

/** Opens the file at `rel` under `root` for reading, refusing a link at any component (O_NONBLOCK: a FIFO never blocks). */
export async function openConfinedForRead(root: string, rel: string): Promise<FileHandle> {
  const { dir, name } = splitParent(rel);
  return withConfinedDirectory(root, dir, {}, (directory) =>
    directory.openFile(name, constants.O_RDONLY | constants.O_NONBLOCK),
  );
}

/** `rel`'s parent directory and last component ("." and the name). */
export function splitParent(rel: string): { dir: string; name: string } {
  const segments = splitRelative(rel);
  const name = segments.pop();
  if (name === undefined) throw new Error('A file path is needed, not the workspace root.');
  return { dir: segments.length === 0 ? '.' : segments.join('/'), name };
}

function splitRelative(rel: string): string[] {
  if (rel === '.' || rel === '') return [];
  const segments = rel.split('/');
  if (path.isAbsolute(rel) || segments.some((segment) => segment === '' || segment === '.' || segment === '..')) {
    throw new Error(`Not a normalised workspace-relative path: '${rel}'.`);
  }
  return segments;
}
