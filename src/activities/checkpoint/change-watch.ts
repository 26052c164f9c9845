// Node: which directories of a workspace had something happen in them since the last checkpoint, from inotify (one
// fs.watch on each recorded directory), so that a checkpoint reads those directories and reuses the rest. A watch can
// miss nothing it reports late: before answering, the watch waits for an event it caused itself in a directory of its
// own, and the kernel queues events in order on the one inotify descriptor every fs.watch of the process shares. What
// it cannot see (changes through a hard link elsewhere or written through mmap; a full queue) is handled by the
// checkpointer: docs/checkpoints.md, "Cost".
import type { FSWatcher } from 'node:fs';
import { mkdtempSync, readFileSync, rmSync, watch } from 'node:fs';
import { unlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { errorCode } from '../files/errors.js';

/** What changed since the last `takeChanges`. */
export interface DirectoryChanges {
  /** The directories with an event in them: an entry created, removed, renamed, written or its attributes changed. */
  dirty: ReadonlySet<string>;
  /** Those and every directory above them, up to the root. */
  touched: ReadonlySet<string>;
}

export interface ChangeWatch {
  /**
   * Watches `directory` (absolute) from now on; call it before reading the directory. `renew`: the path holds another
   * directory than it did (a rename), so a watch of the old one is replaced.
   */
  add(directory: string, renew?: boolean): void;
  /** Stops watching the directories `keep` does not have. */
  retain(keep: ReadonlyMap<string, unknown>): void;
  /**
   * Waits until every change made before the call has been seen, then returns the directories changed since the last
   * call (and forgets them). Undefined when a change may have gone unseen: a watch failed or the events overflowed.
   */
  takeChanges(): Promise<DirectoryChanges | undefined>;
  close(): void;
}

// How long the watch waits for its own event before it stops trusting itself.
const SETTLE_TIMEOUT_MS = 2_000;

// Every event any watch of this process has seen. The kernel drops events once its queue holds max_queued_events and
// libuv does not report the overflow, so a queue may have overflowed only if at least that many were seen since the
// last look; half of it is taken as the limit, for the events of watches closed since.
let eventsSeen = 0;
const SUSPECT_EVENTS = Math.floor(maxQueuedEvents() / 2);

/** A watch over the directories of the workspace `root`. */
export function createChangeWatch(root: string): ChangeWatch {
  const watchers = new Map<string, FSWatcher>();
  let changed = new Set<string>();
  let reliable = true;
  // Out of inotify watches or descriptors: the workspace is read whole from then on, and its watches let go.
  let exhausted = false;
  let eventsAtLastLook = eventsSeen;

  const forget = (directory: string) => {
    watchers.get(directory)?.close();
    watchers.delete(directory);
  };

  return {
    add(directory, renew = false) {
      if (renew) forget(directory);
      if (!reliable || exhausted || watchers.has(directory)) return;
      let watcher: FSWatcher;
      try {
        watcher = watch(directory, { persistent: false }, () => {
          eventsSeen++;
          changed.add(directory);
        });
      } catch (error) {
        // Gone already: the walk finds it gone too.
        const code = errorCode(error);
        if (code === 'ENOENT' || code === 'ENOTDIR') return;
        reliable = false;
        if (code === 'ENOSPC' || code === 'EMFILE') {
          exhausted = true;
          for (const watched of [...watchers.keys()]) forget(watched);
        }
        return;
      }
      watcher.on('error', () => {
        reliable = false;
      });
      watchers.set(directory, watcher);
    },
    retain(keep) {
      for (const directory of [...watchers.keys()]) if (!keep.has(directory)) forget(directory);
    },
    async takeChanges() {
      const settled = await settle();
      const events = eventsSeen - eventsAtLastLook;
      eventsAtLastLook = eventsSeen;
      const directories = changed;
      changed = new Set();
      if (!settled || !reliable || exhausted || events >= SUSPECT_EVENTS) {
        reliable = true;
        return undefined;
      }
      return { dirty: directories, touched: withAncestors(root, directories) };
    },
    close() {
      for (const directory of [...watchers.keys()]) forget(directory);
    },
  };
}

/** `directories` and every directory above them up to `root`, added to a copy of `known`. */
export function withAncestors(root: string, directories: Iterable<string>, known: Iterable<string> = []): Set<string> {
  const touched = new Set<string>(known);
  for (let directory of directories) {
    while (!touched.has(directory)) {
      touched.add(directory);
      if (directory === root || !directory.startsWith(root)) break;
      directory = path.dirname(directory);
    }
  }
  return touched;
}

interface Sentinel {
  directory: string;
  waiting: Map<string, () => void>;
  next: number;
  broken: boolean;
}

let sentinel: Sentinel | undefined;

/** Causes an event in the process's own watched directory and waits for it: every earlier event has then been seen. */
async function settle(): Promise<boolean> {
  const own = sentinel ?? (sentinel = openSentinel());
  if (!own || own.broken) return false;
  const name = `settle-${own.next++}`;
  let timer: NodeJS.Timeout | undefined;
  const seen = new Promise<boolean>((resolve) => {
    own.waiting.set(name, () => resolve(true));
    timer = setTimeout(() => resolve(false), SETTLE_TIMEOUT_MS);
  });
  const file = path.join(own.directory, name);
  try {
    await writeFile(file, '');
    return await seen;
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
    own.waiting.delete(name);
    await unlink(file).catch(() => undefined);
  }
}

function openSentinel(): Sentinel | undefined {
  let directory: string | undefined;
  try {
    directory = mkdtempSync(path.join(os.tmpdir(), 'durable-agent-watch-'));
    const own: Sentinel = { directory, waiting: new Map(), next: 0, broken: false };
    const watcher = watch(directory, { persistent: false }, (_event, name) => {
      eventsSeen++;
      if (typeof name === 'string') own.waiting.get(name)?.();
    });
    watcher.on('error', () => {
      own.broken = true;
    });
    const made = directory;
    process.once('exit', () => rmSync(made, { recursive: true, force: true }));
    return own;
  } catch {
    if (directory) rmSync(directory, { recursive: true, force: true });
    return undefined;
  }
}

function maxQueuedEvents(): number {
  try {
    const value = Number(readFileSync('/proc/sys/fs/inotify/max_queued_events', 'utf8').trim());
    return Number.isSafeInteger(value) && value > 0 ? value : 16_384;
  } catch {
    return 16_384;
  }
}
