// Node: the checkpoint after a call that changed one known file (WriteFile, EditFile): the last checkpoint with that
// file's entry replaced and the trees on its path stored again, without walking the workspace. Anything it cannot
// settle from the path alone — a new directory on the way, a .gitignore, something that is not a plain file or link
// any more — is left to a full checkpoint (undefined).
import { lstat, readFile, readlink } from 'node:fs/promises';
import path from 'node:path';
import type { ContentKey } from '../../protocol/content-key.js';
import type { RebaseAllowance, TreeEntry } from '../../protocol/checkpoint.js';
import { compareNames, encodeTree, sameEntry } from '../../protocol/checkpoint.js';
import type { ContentStore } from '../../store/content-store.js';
import { DEFAULT_MAX_FILE_BYTES } from './checkpointer.js';
import type { TreeReader } from './tree-read.js';
import { createTreeReader } from './tree-read.js';
import { checkpointIgnoreRules } from './ignore-rules.js';
import type { IgnoreRules } from './ignore-rules.js';

/**
 * `previous` with the entry of `rel` (workspace-relative, links resolved) as the file is now under the real root `root`;
 * undefined when only a full checkpoint can say.
 */
export async function checkpointWithPath(
  store: ContentStore,
  root: string,
  previous: ContentKey,
  rel: string,
  ignore: readonly string[] = [],
): Promise<ContentKey | undefined> {
  const components = rel.split('/');
  if (components.some((part) => part === '' || part === '.' || part === '..' || part === '.gitignore'))
    return undefined;
  const rules = await rulesAlong(root, components, checkpointIgnoreRules(ignore));
  if (rules === undefined) return undefined;
  // A path the checkpoints leave out changes nothing they record.
  if (rules.ignored) return previous;
  const update: PathUpdate = { store, read: createTreeReader(store), root, components, rebase: { used: false } };
  return replaceOnPath(update, previous, 0);
}

/** The ignore rules down the path, and whether it (or a directory on it) is left out; undefined for a missing dir. */
async function rulesAlong(
  root: string,
  components: readonly string[],
  rules: IgnoreRules,
): Promise<{ ignored: boolean } | undefined> {
  let current = rules;
  for (let depth = 0; depth < components.length; depth++) {
    const directory = components.slice(0, depth).join('/');
    const gitignore = await readFile(path.join(root, directory, '.gitignore'), 'utf8').catch(() => undefined);
    if (gitignore !== undefined) current = current.withGitignore(directory, gitignore);
    const relative = components.slice(0, depth + 1).join('/');
    if (current.ignores(relative, depth < components.length - 1)) return { ignored: true };
  }
  return { ignored: false };
}

interface PathUpdate {
  store: ContentStore;
  read: TreeReader;
  root: string;
  components: readonly string[];
  rebase: RebaseAllowance;
}

async function replaceOnPath(update: PathUpdate, treeKey: ContentKey, depth: number): Promise<ContentKey | undefined> {
  const { store, read, root, components } = update;
  const tree = await read(treeKey);
  const name = components[depth]!;
  const absolute = path.join(root, ...components.slice(0, depth + 1));
  const existing = tree.entries.find((entry) => entry.name === name);
  let replacement: TreeEntry | null | undefined;
  if (depth === components.length - 1) {
    replacement = await fileEntry(store, absolute, name);
  } else {
    // A directory on the way must be one the last checkpoint recorded, and still a real directory.
    const stats = await lstat(absolute).catch(() => undefined);
    if (!existing || existing.type !== 'dir' || !stats?.isDirectory()) return undefined;
    const child = await replaceOnPath(update, existing.key!, depth + 1);
    replacement = child === undefined ? undefined : { name, type: 'dir', key: child };
  }
  if (replacement === undefined) return undefined;
  // Unchanged (the file written with the bytes it had): the same tree, under the same key.
  if (replacement === null ? !existing : existing && sameEntry(existing, replacement)) return treeKey;
  const entries = tree.entries.filter((entry) => entry.name !== name);
  if (replacement !== null) entries.push(replacement);
  return store.put(encodeTree(entries.sort(compareNames), { key: treeKey, ...tree }, update.rebase).text);
}

/** The file as a checkpoint records it: null when it is gone, undefined when it is not a plain file or a link. */
async function fileEntry(store: ContentStore, absolute: string, name: string): Promise<TreeEntry | null | undefined> {
  const stats = await lstat(absolute, { bigint: true }).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return null;
    throw error;
  });
  if (stats === null) return null;
  if (stats.isSymbolicLink()) return { name, type: 'symlink', target: await readlink(absolute) };
  if (!stats.isFile() || stats.size > BigInt(DEFAULT_MAX_FILE_BYTES)) return undefined;
  const content = await readFile(absolute);
  const key = await store.put(content);
  return { name, type: 'file', mode: Number(stats.mode & 0o7777n), key, size: content.length };
}
