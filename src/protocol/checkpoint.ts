// Workflow-safe: a workspace recorded in the content store. A checkpoint is the key of the root directory's tree; a
// tree names each file by the key of its bytes and each subdirectory by the key of its own tree, so an unchanged
// directory is one shared stored object and a comparison skips every subtree whose key is the same. A directory that
// changed may be stored as its changes to the tree it had before (a delta), so a step that changes one file of a
// large directory does not store the whole directory again.
import type { ContentKey } from './content-key.js';
import { isContentKey } from './content-key.js';

/** One entry of a directory. */
export interface TreeEntry {
  name: string;
  type: 'file' | 'symlink' | 'dir' | 'skipped';
  /** file: the permission bits (st_mode & 0o7777). */
  mode?: number;
  /** file: the key of its bytes; dir: the key of its tree. */
  key?: ContentKey;
  /** symlink: the link's text, never followed. */
  target?: string;
  /** file and skipped: its size in bytes. */
  size?: number;
  /** skipped: why its content is not recorded ('larger than N bytes', 'unreadable: EACCES', 'special file'). */
  reason?: string;
}

/** A directory as stored: its entries sorted by name in code-unit order. */
export interface CheckpointTree {
  checkpoint: 1;
  entries: TreeEntry[];
}

/**
 * A directory stored as the changes to an earlier tree of it (`base`): the entries of `set` added or replaced, the
 * names of `unset` removed. `depth` is the number of deltas down to a whole tree, this one included.
 */
export interface CheckpointTreeDelta {
  checkpoint: 1;
  base: ContentKey;
  depth: number;
  set: TreeEntry[];
  unset: string[];
}

/**
 * A directory whose chain of deltas is this long is stored whole again, unless another directory was already stored
 * whole for the same reason in the same checkpoint: then it waits, so one step never rewrites every tree on its path
 * at once, up to MAX_TREE_DELTA_DEPTH.
 */
export const TREE_DELTA_DEPTH = 8;
/** Deltas on a delta at most: reading a directory takes at most this many reads besides its whole tree. */
export const MAX_TREE_DELTA_DEPTH = 16;

/** A tree written as a base for the next: its key, entries and delta depth (0: stored whole). */
export interface TreeBase {
  key: ContentKey;
  entries: readonly TreeEntry[];
  depth: number;
}

/**
 * One path that differs between two checkpoints, workspace-relative with '/' separators. A directory that appears or
 * disappears is a change of its own (type 'dir'), listed with the changes of what it holds.
 */
export interface FileChange {
  path: string;
  change: 'added' | 'modified' | 'deleted';
  before?: TreeEntry;
  after?: TreeEntry;
}

/** What the `checkpointWorkspace` activity records: the run's workspace, under its own ignore patterns. */
export interface CheckpointWorkspaceInput {
  workspace: string;
  ignore?: string[];
}

export interface ChangeCounts {
  added: number;
  modified: number;
  deleted: number;
}

const ENTRY_TYPES: ReadonlySet<string> = new Set(['file', 'symlink', 'dir', 'skipped']);

/**
 * The changes of files, links and skipped entries: a directory's own appearance or removal goes with what it holds (a
 * type change is listed as a deletion and an addition, so a directory's own change is one-sided).
 */
export function fileChangesOf(changes: readonly FileChange[]): FileChange[] {
  return changes.filter((change) => (change.after ?? change.before)?.type !== 'dir');
}

/** How many files were added, modified and deleted; a directory's own appearance or removal is not counted. */
export function countChanges(changes: readonly FileChange[]): ChangeCounts {
  const counts: ChangeCounts = { added: 0, modified: 0, deleted: 0 };
  for (const change of fileChangesOf(changes)) counts[change.change]++;
  return counts;
}

/**
 * The stored text of a tree: canonical JSON (keys sorted at every level, entries in name order), so equal trees
 * always get equal keys.
 */
export function serializeTree(tree: CheckpointTree): string {
  const entries = isSortedByName(tree.entries) ? tree.entries : [...tree.entries].sort(compareNames);
  return `{"checkpoint":1,"entries":[${entries.map(serializeEntry).join(',')}]}`;
}

/** Whether a checkpoint may still store a directory whole to end its chain of deltas (one may). */
export interface RebaseAllowance {
  used: boolean;
}

/**
 * The text to store for a directory with `entries` (sorted by name) whose previous tree is `base`: a delta on `base`
 * when that is at most half the whole tree and the chain may grow (see TREE_DELTA_DEPTH), else the whole tree.
 */
export function encodeTree(
  entries: readonly TreeEntry[],
  base: TreeBase | undefined,
  rebase: RebaseAllowance,
): { text: string; depth: number } {
  const whole = serializeTree({ checkpoint: 1, entries: [...entries] });
  if (!base || base.depth >= MAX_TREE_DELTA_DEPTH || (base.depth >= TREE_DELTA_DEPTH && !rebase.used)) {
    if (base && base.depth >= TREE_DELTA_DEPTH) rebase.used = true;
    return { text: whole, depth: 0 };
  }
  const set: TreeEntry[] = [];
  const unset: string[] = [];
  let b = 0;
  let a = 0;
  while (b < base.entries.length || a < entries.length) {
    const old = base.entries[b];
    const now = entries[a];
    if (!now || (old && old.name < now.name)) {
      unset.push(old!.name);
      b++;
    } else if (!old || now.name < old.name) {
      set.push(now);
      a++;
    } else {
      if (!sameEntry(old, now)) set.push(now);
      a++;
      b++;
    }
  }
  const depth = base.depth + 1;
  const delta =
    `{"base":${JSON.stringify(base.key)},"checkpoint":1,"depth":${depth},` +
    `"set":[${set.map(serializeEntry).join(',')}],"unset":${JSON.stringify(unset)}}`;
  return delta.length * 2 <= whole.length ? { text: delta, depth } : { text: whole, depth: 0 };
}

/** The entries of a delta's directory, given its base's. */
export function applyTreeDelta(base: readonly TreeEntry[], delta: CheckpointTreeDelta): TreeEntry[] {
  const removed = new Set([...delta.unset, ...delta.set.map((entry) => entry.name)]);
  return [...base.filter((entry) => !removed.has(entry.name)), ...delta.set].sort(compareNames);
}

/**
 * The tree stored under `key`, whole or a delta; throws when the text is not one (another object's key, a damaged
 * tree).
 */
export function parseTree(key: string, text: string): CheckpointTree | CheckpointTreeDelta {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw notATree(key, 'it is not JSON');
  }
  if (isRecord(value) && value.checkpoint === 1 && value.base !== undefined) return parseDelta(key, value);
  if (!isRecord(value) || value.checkpoint !== 1 || !Array.isArray(value.entries)) {
    throw notATree(key, 'it has no "checkpoint": 1 and "entries" list');
  }
  return { checkpoint: 1, entries: sortedEntries(key, value.entries as unknown[]) };
}

function parseDelta(key: string, value: Record<string, unknown>): CheckpointTreeDelta {
  const { base, depth, set, unset } = value;
  if (!isContentKey(base)) throw notATree(key, 'its base is not a content key');
  if (!isCount(depth) || depth < 1 || depth > MAX_TREE_DELTA_DEPTH) {
    throw notATree(key, `its depth is not 1 to ${MAX_TREE_DELTA_DEPTH}`);
  }
  if (!Array.isArray(set) || !Array.isArray(unset) || !unset.every((name) => typeof name === 'string')) {
    throw notATree(key, 'it has no "set" list of entries and "unset" list of names');
  }
  return { checkpoint: 1, base, depth, set: sortedEntries(key, set as unknown[]), unset };
}

function sortedEntries(key: string, entries: unknown[]): TreeEntry[] {
  entries.forEach((entry, index) => {
    const problem = entryProblem(entry);
    if (problem) throw notATree(key, `entry ${index} ${problem}`);
    const previous = entries[index - 1] as TreeEntry | undefined;
    if (previous && !(previous.name < (entry as TreeEntry).name)) {
      throw notATree(key, `entry ${index} is out of name order`);
    }
  });
  return entries as TreeEntry[];
}

/** Whether two entries record the same thing (name aside). */
export function sameEntry(left: TreeEntry, right: TreeEntry): boolean {
  return (
    left === right ||
    (left.type === right.type &&
      left.key === right.key &&
      left.mode === right.mode &&
      left.target === right.target &&
      left.size === right.size &&
      left.reason === right.reason)
  );
}

/** Orders names by UTF-16 code units, as trees are sorted (not locale order). */
export function compareNames(left: { name: string }, right: { name: string }): number {
  return left.name < right.name ? -1 : left.name > right.name ? 1 : 0;
}

// Keys in sorted order, as canonicalJson writes them; written out by hand because every checkpoint serialises every
// directory of the workspace to see whether it changed.
function serializeEntry(entry: TreeEntry): string {
  let text = '{';
  if (entry.key !== undefined) text += `"key":${JSON.stringify(entry.key)},`;
  if (entry.mode !== undefined) text += `"mode":${JSON.stringify(entry.mode)},`;
  text += `"name":${JSON.stringify(entry.name)},`;
  if (entry.reason !== undefined) text += `"reason":${JSON.stringify(entry.reason)},`;
  if (entry.size !== undefined) text += `"size":${JSON.stringify(entry.size)},`;
  if (entry.target !== undefined) text += `"target":${JSON.stringify(entry.target)},`;
  return `${text}"type":${JSON.stringify(entry.type)}}`;
}

function isSortedByName(entries: readonly TreeEntry[]): boolean {
  for (let index = 1; index < entries.length; index++) {
    if (compareNames(entries[index - 1]!, entries[index]!) > 0) return false;
  }
  return true;
}

function entryProblem(entry: unknown): string | undefined {
  if (!isRecord(entry)) return 'is not an object';
  const { name, type } = entry;
  if (typeof name !== 'string' || name === '' || name === '.' || name === '..' || name.includes('/')) {
    return 'has no valid name';
  }
  if (typeof type !== 'string' || !ENTRY_TYPES.has(type)) return 'has no valid type';
  if ((type === 'file' || type === 'dir') && !isContentKey(entry.key)) return `(${type}) has no content key`;
  if (type === 'file' && (!isCount(entry.mode) || !isCount(entry.size))) return '(file) has no mode and size';
  if (type === 'symlink' && typeof entry.target !== 'string') return '(symlink) has no target';
  if (type === 'skipped' && typeof entry.reason !== 'string') return '(skipped) has no reason';
  return undefined;
}

function notATree(key: string, why: string): Error {
  return new Error(`Stored content ${key} is not a checkpoint tree: ${why}.`);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}
