// Node: records a workspace directory in the content store as a tree of trees (src/protocol/checkpoint.ts). It runs
// around every tool call that may change files, so its cost follows what changed, not the workspace's size: a file
// whose stat is as it was is not read again, a directory whose entries are as they were is not stored again, and with
// a change watch a directory nothing happened in since the last checkpoint is not even read.
import { constants, lstat, lstatSync } from 'node:fs';
import type { BigIntStats, Dirent } from 'node:fs';
import { open, readdir, readFile, readlink } from 'node:fs/promises';
import path from 'node:path';
import type { ContentKey } from '../../protocol/content-key.js';
import type { RebaseAllowance, TreeEntry } from '../../protocol/checkpoint.js';
import { compareNames, encodeTree, sameEntry } from '../../protocol/checkpoint.js';
import type { ContentStore } from '../../store/content-store.js';
import { contentBytes, sha256Hex } from '../../store/object-key.js';
import { errorCode } from '../files/errors.js';
import type { ChangeWatch, DirectoryChanges } from './change-watch.js';
import { createChangeWatch, withAncestors } from './change-watch.js';
import type { IgnoreRules } from './ignore-rules.js';
import { checkpointIgnoreRules } from './ignore-rules.js';

/** Files larger than this are recorded by their size alone, as 'skipped' entries. */
export const DEFAULT_MAX_FILE_BYTES = 64 * 1024 * 1024;
// Files read and trees written at once, across the checkpointer's checkpoints: 10,000 new files do not hold 10,000
// handles.
const IO_CONCURRENCY = 16;
// A file can change again within the same timestamp tick, keeping its size and times (git's "racy clean" case), so a
// file modified this shortly before its stat was taken is read again next time instead of being trusted.
const RACY_NS = 2_000_000_000n;
// Workspaces whose caches are kept: a worker serves many runs, each in a workspace of its own.
const CACHED_ROOTS = 16;
// O_NOFOLLOW: a file swapped for a link after its lstat is not read through the link. O_NONBLOCK: nor does a file
// swapped for a FIFO block the open.
const READ_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;
// lstat calls made on the main thread between two looks at the clock, and the time such a batch may take (about
// 25 microseconds a call) before the walk stops blocking the event loop on them.
const LSTAT_BATCH = 256;
const LSTAT_BATCH_SLOW_MS = 6;
const CHANGED_DURING_WALK = 'changed while being checkpointed';
/**
 * How long a cached entry's object is named without being stored again. A store's put of content it has refreshes the
 * object's age, and `gc` keeps anything written within its --older-than (at least this long), so an unchanged file
 * whose object a collection could have taken is read and stored again rather than named blindly.
 */
export const STORED_TRUST_MS = 60 * 60 * 1000;
// With a change watch, a checkpoint still reads the whole workspace at least this often: what the watch cannot see (a
// file written through mmap, or through a hard link from outside) is found within this time.
const FULL_WALK_MS = 5 * 60 * 1000;

export interface CheckpointOptions {
  /** Patterns left out besides the defaults and .gitignore files: gitignore syntax, relative to the root. */
  ignore?: readonly string[];
  /** Default 64 MiB; a larger file is a 'skipped' entry with its size. */
  maxFileBytes?: number;
}

export interface Checkpoint {
  /** The key of the root directory's tree. */
  key: ContentKey;
  /** Regular files recorded with their content. */
  files: number;
  /** Files read and hashed this time; the others' stat was as the last checkpoint found it. */
  hashed: number;
  /** Entries whose content is not recorded: too large, unreadable, special files. */
  skipped: number;
  /** Directories listed this time; the others were carried over unread, nothing having happened in them. */
  directoriesRead: number;
}

export interface Checkpointer {
  /** Records the directory `root`; links in it are recorded as links, never followed. */
  checkpoint(root: string, options?: CheckpointOptions): Promise<Checkpoint>;
}

/** What the last checkpoint of one root saw, by absolute directory path. */
interface RootMemo {
  extra: string;
  rules: IgnoreRules;
  directories: Map<string, DirectoryMemo>;
  watch: ChangeWatch | undefined;
  /** When the whole workspace was last read (Date.now()). */
  fullWalkAt: number;
  /** Directories holding a file with more than one link: a write through another link raises no event here. */
  linked: Set<string>;
}

interface DirectoryMemo {
  /** The directory's inode: a path that holds another directory now (a rename) is not trusted by its path. */
  ino: bigint;
  /** `rules` was made from the parent's rules and this directory's .gitignore text; equal inputs reuse it. */
  parentRules: IgnoreRules;
  gitignore: string | undefined;
  rules: IgnoreRules;
  /** Whether `rules` leave out a name (a directory's name with a trailing '/'). */
  ignored: Map<string, boolean>;
  /** The files whose stat can be trusted, by name. */
  files: Map<string, FileMemo>;
  entries: TreeEntry[];
  key: ContentKey;
  /** Deltas from the tree to a whole one (0: stored whole). */
  depth: number;
  /** When the tree was last stored (Date.now()); for a delta, the oldest of it and the trees it is based on. */
  storedAt: number;
  /** The oldest storedAt of anything the tree names, itself and the trees below included. */
  oldestStoredAt: number;
  /** Absolute paths of the subdirectories recorded. */
  subdirectories: string[];
  /** Files and skipped entries in the tree and below it, counted once when it was recorded. */
  filesBelow: number;
  skippedBelow: number;
}

/** A file's stat when it was read, and the entry made of it, which holds while the stat is the same. */
interface FileMemo {
  dev: bigint;
  ino: bigint;
  size: bigint;
  mtimeNs: bigint;
  ctimeNs: bigint;
  mode: bigint;
  entry: TreeEntry;
  /** When the content was last stored (Date.now()). */
  storedAt: number;
}

interface Walk {
  store: ContentStore;
  limitIo: Limiter;
  /** The trees being written. */
  writes: Promise<void>[];
  previous: Map<string, DirectoryMemo> | undefined;
  next: Map<string, DirectoryMemo>;
  watch: ChangeWatch | undefined;
  /** From the watch: what changed since the last checkpoint; undefined reads every directory. */
  changes: DirectoryChanges | undefined;
  linked: Set<string>;
  rebase: RebaseAllowance;
  maxFileBytes: number;
  /** Wall-clock time the walk began, in nanoseconds. */
  startedNs: bigint;
  /** Set once an lstat batch ran slowly: the filesystem is not answering from its cache. */
  slowLstat: boolean;
  files: number;
  hashed: number;
  skipped: number;
  directoriesRead: number;
}

interface Directory {
  absolute: string;
  /** Workspace-relative, '' for the root. */
  relative: string;
  /** The rules in force in the parent (for the root: the defaults and the run's patterns). */
  rules: IgnoreRules;
  /** Whether the parent was read because something happened in it (or without a watch): a rename may have happened. */
  parentChanged: boolean;
}

export interface CheckpointerOptions {
  /**
   * Watch the directories of each workspace (inotify) so that a checkpoint reads only those something happened in. A
   * worker, which checkpoints the same workspaces again and again, wants it; a one-off checkpoint does not.
   */
  watch?: boolean;
}

/** One checkpointer per worker: its caches are what keep a checkpoint's cost to the files that changed. */
export function createCheckpointer(store: ContentStore, options: CheckpointerOptions = {}): Checkpointer {
  const limitIo = createLimiter(IO_CONCURRENCY);
  const roots = new Map<string, RootMemo>();

  return {
    async checkpoint(root, checkpointOptions = {}) {
      const maxFileBytes = checkpointOptions.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;
      if (!(maxFileBytes >= 0)) throw new RangeError(`maxFileBytes must be 0 or more, got ${maxFileBytes}`);
      const absolute = path.resolve(root);
      const extra = JSON.stringify([checkpointOptions.ignore ?? [], maxFileBytes]);
      let previous = roots.get(absolute);
      if (previous && previous.extra !== extra) {
        previous.watch?.close();
        roots.delete(absolute);
        previous = undefined;
      }
      const watch = previous?.watch ?? (options.watch ? createChangeWatch(absolute) : undefined);
      const changes = previous?.watch && (await previous.watch.takeChanges());
      const walk: Walk = {
        store,
        limitIo,
        writes: [],
        previous: previous?.directories,
        next: new Map(),
        watch,
        changes:
          changes && Date.now() - previous!.fullWalkAt < FULL_WALK_MS
            ? withLinked(absolute, changes, previous!.linked)
            : undefined,
        linked: new Set(),
        rebase: { used: false },
        maxFileBytes,
        startedNs: BigInt(Date.now()) * 1_000_000n,
        slowLstat: false,
        files: 0,
        hashed: 0,
        skipped: 0,
        directoriesRead: 0,
      };
      const rules = previous?.rules ?? checkpointIgnoreRules(checkpointOptions.ignore);
      let key: ContentKey;
      try {
        key = await directoryKey(walk, { absolute, relative: '', rules, parentChanged: true });
      } catch (error) {
        watch?.close();
        roots.delete(absolute);
        throw error;
      } finally {
        // Every write settles before the checkpoint does, whichever way it ends.
        await Promise.allSettled(walk.writes);
      }
      await Promise.all(walk.writes);

      // Only the directories this checkpoint saw are remembered (and watched), so the cache is as large as the workspace.
      watch?.retain(walk.next);
      roots.delete(absolute);
      const fullWalkAt = walk.changes ? previous!.fullWalkAt : Date.now();
      roots.set(absolute, { extra, rules, directories: walk.next, watch, fullWalkAt, linked: walk.linked });
      if (roots.size > CACHED_ROOTS) {
        const [oldest, memo] = roots.entries().next().value!;
        memo.watch?.close();
        roots.delete(oldest);
      }

      const { files, hashed, skipped, directoriesRead } = walk;
      return { key, files, hashed, skipped, directoriesRead };
    },
  };
}

/** The watch's changes, with the directories holding multiply-linked files counted as changed every time. */
function withLinked(root: string, changes: DirectoryChanges, linked: ReadonlySet<string>): DirectoryChanges {
  if (linked.size === 0) return changes;
  return { dirty: new Set([...changes.dirty, ...linked]), touched: withAncestors(root, linked, changes.touched) };
}

/**
 * The key of a directory's tree. One nothing happened in or below since the last checkpoint (by the watch) is not
 * read: its last tree and everything remembered below it are carried over.
 */
async function directoryKey(walk: Walk, directory: Directory): Promise<ContentKey> {
  const { absolute } = directory;
  let memo = walk.previous?.get(absolute);
  const quiet =
    walk.changes !== undefined &&
    memo !== undefined &&
    !walk.changes.touched.has(absolute) &&
    memo.parentRules === directory.rules &&
    trusted(memo.oldestStoredAt);
  if (quiet && !directory.parentChanged) return carry(walk, absolute, memo!);
  // In a parent that changed, the name may hold another directory now (renamed into place): its inode says.
  const stats = lstatSync(absolute, { bigint: true });
  if (!stats.isDirectory()) throw new ChangedDuringWalk(absolute);
  const renamed = memo !== undefined && memo.ino !== stats.ino;
  if (renamed) memo = undefined;
  if (quiet && memo) return carry(walk, absolute, memo);
  // Watched before it is read: a change from here on is an event, so the next checkpoint reads it again.
  walk.watch?.add(absolute, renamed);
  const dirents = await readdir(absolute, { withFileTypes: true });
  walk.directoriesRead++;
  return recordDirectory(walk, directory, stats.ino, memo, dirents);
}

/** Keeps an unchanged directory's memo, and those of every directory below it, for the next checkpoint. */
function carry(walk: Walk, absolute: string, memo: DirectoryMemo): ContentKey {
  walk.next.set(absolute, memo);
  walk.files += memo.filesBelow;
  walk.skipped += memo.skippedBelow;
  const pending = [memo];
  for (let next = pending.pop(); next; next = pending.pop()) {
    for (const subdirectory of next.subdirectories) {
      const below = walk.previous!.get(subdirectory);
      if (below) {
        walk.next.set(subdirectory, below);
        pending.push(below);
      }
    }
  }
  return memo.key;
}

/** Stores the tree of one directory (and of every directory below it) and returns its key. */
async function recordDirectory(
  walk: Walk,
  directory: Directory,
  ino: bigint,
  previous: DirectoryMemo | undefined,
  dirents: Dirent[],
): Promise<ContentKey> {
  const { absolute, relative } = directory;
  const changed = walk.changes === undefined || previous === undefined || walk.changes.dirty.has(absolute);
  const prefix = absolute.endsWith('/') ? absolute : `${absolute}/`;
  dirents.sort(compareNames);

  const gitignore = dirents.some((dirent) => dirent.name === '.gitignore' && dirent.isFile())
    ? await readGitignore(`${prefix}.gitignore`)
    : undefined;
  const rules =
    previous && previous.parentRules === directory.rules && previous.gitignore === gitignore
      ? previous.rules
      : gitignore === undefined
        ? directory.rules
        : directory.rules.withGitignore(relative, gitignore);
  const ignored = ignoredNames(dirents, relative, rules, previous?.rules === rules ? previous.ignored : undefined);

  const entries: (TreeEntry | undefined)[] = [];
  const subdirectories: string[] = [];
  const waits: Promise<void>[] = [];
  const statNames: string[] = [];
  const statSlots: number[] = [];
  for (const dirent of dirents) {
    const { name } = dirent;
    const isDirectory = dirent.isDirectory();
    if (ignored.get(isDirectory ? `${name}/` : name)) continue;
    const slot = entries.push(undefined) - 1;
    if (isDirectory) {
      const below = {
        absolute: `${prefix}${name}`,
        relative: relative === '' ? name : `${relative}/${name}`,
        rules,
        parentChanged: changed,
      };
      subdirectories.push(below.absolute);
      waits.push(directoryEntry(walk, name, below).then((entry) => void (entries[slot] = entry)));
    } else if (dirent.isSymbolicLink()) {
      waits.push(symlinkEntry(name, `${prefix}${name}`).then((entry) => void (entries[slot] = entry)));
    } else {
      // Files and special files: their stat says which, and whether the cached entry still holds.
      statNames.push(name);
      statSlots.push(slot);
    }
  }

  const files = new Map<string, FileMemo>();
  const stats = await lstatAll(walk, prefix, statNames);
  stats.forEach((stat, index) => {
    const name = statNames[index]!;
    const slot = statSlots[index]!;
    if (!(stat instanceof Error) && stat.nlink > 1n && stat.isFile()) walk.linked.add(absolute);
    const entry = statEntry(walk, name, `${prefix}${name}`, stat, previous?.files.get(name), files);
    if (entry instanceof Promise) waits.push(entry.then((read) => void (entries[slot] = read)));
    else entries[slot] = entry;
  });
  await Promise.all(waits);

  const recorded = entries.filter((entry): entry is TreeEntry => entry !== undefined);
  let filesBelow = 0;
  let skippedBelow = 0;
  for (const entry of recorded) {
    if (entry.type === 'file') filesBelow++;
    else if (entry.type === 'skipped') skippedBelow++;
  }
  walk.files += filesBelow;
  walk.skipped += skippedBelow;
  // An unchanged directory is neither serialised nor stored again; its cached files' entries are the same objects.
  const trustedPrevious = previous !== undefined && trusted(previous.storedAt) ? previous : undefined;
  let key: ContentKey;
  let depth: number;
  let storedAt: number;
  if (trustedPrevious && sameEntries(trustedPrevious.entries, recorded)) {
    ({ key, depth, storedAt } = trustedPrevious);
  } else {
    const tree = encodeTree(recorded, trustedPrevious, walk.rebase);
    key = storeTree(walk, tree.text);
    depth = tree.depth;
    // A delta names its base, which must last as long: it counts as stored when the oldest of its chain was.
    storedAt = depth > 0 ? trustedPrevious!.storedAt : Date.now();
  }
  let oldestStoredAt = storedAt;
  for (const file of files.values()) oldestStoredAt = Math.min(oldestStoredAt, file.storedAt);
  for (const below of subdirectories) {
    const memo = walk.next.get(below);
    if (!memo) continue;
    oldestStoredAt = Math.min(oldestStoredAt, memo.oldestStoredAt);
    filesBelow += memo.filesBelow;
    skippedBelow += memo.skippedBelow;
  }
  walk.next.set(absolute, {
    ino,
    parentRules: directory.rules,
    gitignore,
    rules,
    ignored,
    files,
    entries: recorded,
    key,
    depth,
    storedAt,
    oldestStoredAt,
    subdirectories: subdirectories.filter((below) => walk.next.has(below)),
    filesBelow,
    skippedBelow,
  });
  return key;
}

/**
 * The tree's key, computed here so that its parent need not wait for the store: the trees a checkpoint changed are
 * written side by side and awaited before it returns. (Files are hashed by the store's put alone.)
 */
function storeTree(walk: Walk, tree: string): ContentKey {
  const bytes = contentBytes(tree);
  const key: ContentKey = `sha256:${sha256Hex(bytes)}`;
  const write = walk.limitIo(async () => {
    const stored = await walk.store.put(bytes);
    if (stored !== key) throw new Error(`${walk.store.description} stored a checkpoint tree as ${stored}, not ${key}`);
  });
  // Handled here too: a write that fails after the walk already failed for another reason is no unhandled rejection.
  write.catch(() => undefined);
  walk.writes.push(write);
  return key;
}

/** Whether each name is left out, asking `rules` only about names not decided under the same rules last time. */
function ignoredNames(
  dirents: readonly Dirent[],
  relative: string,
  rules: IgnoreRules,
  known: Map<string, boolean> | undefined,
): Map<string, boolean> {
  const ignored = new Map<string, boolean>();
  let allKnown = known !== undefined && known.size === dirents.length;
  for (const dirent of dirents) {
    const isDirectory = dirent.isDirectory();
    const question = isDirectory ? `${dirent.name}/` : dirent.name;
    let leftOut = known?.get(question);
    if (leftOut === undefined) {
      allKnown = false;
      leftOut = rules.ignores(relative === '' ? dirent.name : `${relative}/${dirent.name}`, isDirectory);
    }
    ignored.set(question, leftOut);
  }
  return allKnown ? known! : ignored;
}

function sameEntries(before: readonly TreeEntry[], after: readonly TreeEntry[]): boolean {
  if (before.length !== after.length) return false;
  for (let index = 0; index < after.length; index++) {
    const left = before[index]!;
    const right = after[index]!;
    if (left.name !== right.name || !sameEntry(left, right)) return false;
  }
  return true;
}

async function directoryEntry(walk: Walk, name: string, directory: Directory): Promise<TreeEntry | undefined> {
  try {
    return { name, type: 'dir', key: await directoryKey(walk, directory) };
  } catch (error) {
    if (error instanceof ChangedDuringWalk) return { name, type: 'skipped', reason: CHANGED_DURING_WALK };
    return unreadableEntry(name, error);
  }
}

/** A name listed as a directory that is something else by the time it is read. */
class ChangedDuringWalk extends Error {
  constructor(directory: string) {
    super(`${directory} is no longer a directory`);
  }
}

async function symlinkEntry(name: string, link: string): Promise<TreeEntry | undefined> {
  try {
    return { name, type: 'symlink', target: await readlink(link) };
  } catch (error) {
    return unreadableEntry(name, error);
  }
}

/** The entry of a file or special file from its stat: at once from the cache, or once its content is stored. */
function statEntry(
  walk: Walk,
  name: string,
  file: string,
  stats: BigIntStats | Error,
  cached: FileMemo | undefined,
  files: Map<string, FileMemo>,
): TreeEntry | undefined | Promise<TreeEntry | undefined> {
  if (stats instanceof Error) return unreadableEntry(name, stats);
  if (!stats.isFile()) {
    // Listed as a file, now a directory or a link: the next checkpoint records what it became.
    if (stats.isDirectory() || stats.isSymbolicLink()) return { name, type: 'skipped', reason: CHANGED_DURING_WALK };
    return { name, type: 'skipped', size: Number(stats.size), reason: 'special file' };
  }
  if (stats.size > walk.maxFileBytes) return tooLarge(name, walk.maxFileBytes, Number(stats.size));
  if (cached && sameStat(cached, stats) && trusted(cached.storedAt)) {
    files.set(name, cached);
    return cached.entry;
  }
  return hashFile(walk, name, file, stats, files);
}

async function hashFile(
  walk: Walk,
  name: string,
  file: string,
  stats: BigIntStats,
  files: Map<string, FileMemo>,
): Promise<TreeEntry | undefined> {
  return walk.limitIo(async () => {
    const content = await readContent(file, walk.maxFileBytes);
    if (content === undefined) return undefined;
    if (!Buffer.isBuffer(content)) {
      return { name, type: 'skipped', size: content.size ?? Number(stats.size), reason: content.reason };
    }
    // The store hashes what it writes and returns the key: the bytes are hashed once.
    const key = await walk.store.put(content);
    walk.hashed++;
    const entry: TreeEntry = { name, type: 'file', mode: Number(stats.mode & 0o7777n), key, size: content.length };
    if (stats.mtimeNs + RACY_NS < walk.startedNs) {
      const { dev, ino, size, mtimeNs, ctimeNs, mode } = stats;
      files.set(name, { dev, ino, size, mtimeNs, ctimeNs, mode, entry, storedAt: Date.now() });
    }
    return entry;
  });
}

/** The file's bytes, or why they are not recorded; undefined when it is gone. */
async function readContent(
  file: string,
  maxBytes: number,
): Promise<Buffer | { reason: string; size?: number } | undefined> {
  let handle;
  try {
    handle = await open(file, READ_FLAGS);
  } catch (error) {
    return unreadable(error);
  }
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) return { reason: CHANGED_DURING_WALK };
    if (stats.size > maxBytes) return { reason: tooLargeReason(maxBytes), size: stats.size };
    const bytes = await handle.readFile();
    // Grown since its stat.
    if (bytes.length > maxBytes) return { reason: tooLargeReason(maxBytes), size: bytes.length };
    return bytes;
  } catch (error) {
    return unreadable(error);
  } finally {
    await handle.close();
  }
}

/**
 * lstat of every name in a directory. On the main thread while the filesystem answers from its cache: there 10,000
 * calls take about 30 ms on two cores, against 45 to 60 ms through the thread pool (whose hand-offs cost more than the
 * calls) and over 130 ms through fs.promises. A filesystem that answers slowly (a network mount) would block the event
 * loop instead, so a walk that meets one moves to the thread pool.
 */
async function lstatAll(walk: Walk, prefix: string, names: readonly string[]): Promise<(BigIntStats | Error)[]> {
  const results: (BigIntStats | Error)[] = [];
  let next = 0;
  while (next < names.length && !walk.slowLstat) {
    const end = Math.min(names.length, next + LSTAT_BATCH);
    const started = performance.now();
    for (; next < end; next++) results.push(lstatNow(`${prefix}${names[next]!}`));
    if (performance.now() - started > LSTAT_BATCH_SLOW_MS) walk.slowLstat = true;
  }
  if (next < names.length) results.push(...(await lstatInPool(prefix, names.slice(next))));
  return results;
}

function lstatNow(file: string): BigIntStats | Error {
  try {
    return lstatSync(file, { bigint: true });
  } catch (error) {
    return error instanceof Error ? error : new Error(String(error));
  }
}

/** lstat through the thread pool, as one promise for the batch: no promise chain per file. */
function lstatInPool(prefix: string, names: readonly string[]): Promise<(BigIntStats | Error)[]> {
  return new Promise((resolve) => {
    const results = new Array<BigIntStats | Error>(names.length);
    let pending = names.length;
    if (pending === 0) resolve(results);
    names.forEach((name, index) => {
      lstat(`${prefix}${name}`, { bigint: true }, (error, stats) => {
        results[index] = error ?? stats;
        if (--pending === 0) resolve(results);
      });
    });
  });
}

async function readGitignore(file: string): Promise<string | undefined> {
  try {
    return await readFile(file, { encoding: 'utf8', flag: READ_FLAGS });
  } catch {
    // Unreadable or gone: it ignores nothing.
    return undefined;
  }
}

function trusted(storedAt: number): boolean {
  return Date.now() - storedAt < STORED_TRUST_MS;
}

function sameStat(cached: FileMemo, stats: BigIntStats): boolean {
  return (
    cached.mtimeNs === stats.mtimeNs &&
    cached.size === stats.size &&
    cached.ctimeNs === stats.ctimeNs &&
    cached.ino === stats.ino &&
    cached.dev === stats.dev &&
    cached.mode === stats.mode
  );
}

/** A name that vanished is left out; one that cannot be read is recorded as skipped, with the reason. */
function unreadableEntry(name: string, error: unknown): TreeEntry | undefined {
  const why = unreadable(error);
  return why && { name, type: 'skipped', reason: why.reason };
}

function unreadable(error: unknown): { reason: string } | undefined {
  const code = errorCode(error);
  if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
  return { reason: `unreadable: ${code ?? (error instanceof Error ? error.message : String(error))}` };
}

function tooLarge(name: string, maxBytes: number, size: number): TreeEntry {
  return { name, type: 'skipped', size, reason: tooLargeReason(maxBytes) };
}

function tooLargeReason(maxBytes: number): string {
  return `larger than ${maxBytes} bytes`;
}

type Limiter = <T>(task: () => Promise<T>) => Promise<T>;

/** Runs at most `limit` tasks at a time, the others in the order they came. */
function createLimiter(limit: number): Limiter {
  let running = 0;
  const waiting: (() => void)[] = [];
  return async (task) => {
    if (running < limit) running++;
    else await new Promise<void>((resolve) => waiting.push(resolve));
    try {
      return await task();
    } finally {
      // The slot passes straight to the next waiting task, if any.
      const next = waiting.shift();
      if (next) next();
      else running--;
    }
  };
}
