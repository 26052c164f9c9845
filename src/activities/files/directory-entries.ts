// Node: one directory's entries as the worker's tree walks see them (search/walk.ts for Glob and Grep, the protected
// paths of sandbox/protected-paths.ts): typed as lstat would type them, so a link is never a directory or a file and
// no walk that enters only `directory` entries can follow one out of the workspace.
import { readdir } from 'node:fs/promises';

/** What an entry is, without following it. */
export type EntryKind = 'directory' | 'file' | 'link' | 'other';

/** One entry of a listing. */
export interface DirectoryEntry {
  name: string;
  /** The entry's path relative to the walk's top, POSIX: `<relative of the directory>/<name>`, or the name alone. */
  relative: string;
  kind: EntryKind;
}

/** The entries of `absolute`, whose path relative to the walk's top is `relative` ("" for the top), in listing order. */
export async function listDirectoryEntries(absolute: string, relative: string): Promise<DirectoryEntry[]> {
  const listing = await readdir(absolute, { withFileTypes: true });
  return listing.map((entry) => ({
    name: entry.name,
    relative: relative === '' ? entry.name : `${relative}/${entry.name}`,
    kind: entry.isSymbolicLink() ? 'link' : entry.isDirectory() ? 'directory' : entry.isFile() ? 'file' : 'other',
  }));
}
