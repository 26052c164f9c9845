// Node: reading one workflow id's live files as they grow. Each file is read from the byte offset reached so far, only
// whole lines are taken, and every line is checked before it is believed (it is a model's output, written by another
// process). fs.watch wakes the reader at once; a short poll covers what a watch misses (a directory not made yet).
import { constants, watch } from 'node:fs';
import type { FSWatcher } from 'node:fs';
import { mkdir, open, readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import type { LiveSubscription } from './live-channel.js';
import type { LiveEvent } from './live-event.js';
import { parseLiveEvent } from './live-event.js';
import { workflowDirectory } from './file-layout.js';

const POLL_MS = 250;
const READ_CHUNK_BYTES = 1024 * 1024;
// No event line is this long (deltas are a network chunk each); a longer one is skipped, never buffered whole.
const MAX_LINE_BYTES = 4 * 1024 * 1024;

interface FileState {
  offset: number;
  /** Bytes of a line not finished yet. */
  rest: Buffer;
  /** Skipping the rest of an overlong line. */
  skipping: boolean;
}

interface FoundFile {
  path: string;
  size: number;
  mtimeMs: number;
}

/** The events of `workflowId` under `root`, as they are written, until the subscription's signal aborts. */
export async function* subscribeToFiles(
  root: string,
  workflowId: string,
  { from, signal }: LiveSubscription,
): AsyncGenerator<LiveEvent> {
  const directory = workflowDirectory(root, workflowId);
  const files = new Map<string, FileState>();
  const wake = new Wakeup(signal);
  // The root, private like everything under it, so it can be watched before the worker writes there.
  await mkdir(root, { recursive: true, mode: 0o700 }).catch(() => undefined);
  let first = true;
  try {
    while (!signal.aborted) {
      const found = await listAttemptFiles(directory, wake);
      if (first && from === 'current') skipAllButLatest(found, files);
      first = false;
      for (const file of found.sort((a, b) => a.mtimeMs - b.mtimeMs)) {
        const state = files.get(file.path) ?? { offset: 0, rest: Buffer.alloc(0), skipping: false };
        files.set(file.path, state);
        for (const event of await readNewLines(file, state)) if (event.workflowId === workflowId) yield event;
        if (signal.aborted) return;
      }
      await wake.next(POLL_MS);
    }
  } finally {
    wake.close();
  }
}

// `from: 'current'`: the latest call attempt from its beginning, every older one from where it is now.
function skipAllButLatest(found: FoundFile[], files: Map<string, FileState>): void {
  const latest = found.reduce<FoundFile | undefined>(
    (best, file) => (best === undefined || file.mtimeMs >= best.mtimeMs ? file : best),
    undefined,
  );
  for (const file of found) {
    if (file !== latest) files.set(file.path, { offset: file.size, rest: Buffer.alloc(0), skipping: false });
  }
}

async function listAttemptFiles(directory: string, wake: Wakeup): Promise<FoundFile[]> {
  const runs = await readdir(directory, { withFileTypes: true }).catch(() => undefined);
  // Before the run's first call the directory is not there yet: the root's watch says when it is.
  if (!runs) {
    wake.watch(path.dirname(directory));
    return [];
  }
  wake.watch(directory);
  const found: FoundFile[] = [];
  for (const run of runs) {
    if (!run.isDirectory()) continue;
    const runDirectory = path.join(directory, run.name);
    wake.watch(runDirectory);
    for (const entry of await readdir(runDirectory, { withFileTypes: true }).catch(() => [])) {
      if (!entry.isFile() || !entry.name.endsWith('.ndjson')) continue;
      const filePath = path.join(runDirectory, entry.name);
      const info = await stat(filePath).catch(() => undefined);
      if (info) found.push({ path: filePath, size: info.size, mtimeMs: info.mtimeMs });
    }
  }
  return found;
}

async function readNewLines(file: FoundFile, state: FileState): Promise<LiveEvent[]> {
  if (file.size <= state.offset) return [];
  const handle = await open(file.path, constants.O_RDONLY | constants.O_NOFOLLOW).catch(() => undefined);
  if (!handle) return [];
  const events: LiveEvent[] = [];
  try {
    while (state.offset < file.size) {
      const buffer = Buffer.alloc(Math.min(READ_CHUNK_BYTES, file.size - state.offset));
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, state.offset);
      if (bytesRead === 0) break;
      state.offset += bytesRead;
      takeLines(state, buffer.subarray(0, bytesRead), events);
    }
  } finally {
    await handle.close();
  }
  return events;
}

// Splits at newlines (bytes, so no character is cut in two); the unfinished tail waits for the next read.
function takeLines(state: FileState, chunk: Buffer, events: LiveEvent[]): void {
  let start = 0;
  for (let newline = chunk.indexOf(10); newline !== -1; newline = chunk.indexOf(10, start)) {
    const line = Buffer.concat([state.rest, chunk.subarray(start, newline)]);
    if (!state.skipping) {
      const event = parseLiveEvent(line.toString('utf8'));
      if (event) events.push(event);
    }
    state.rest = Buffer.alloc(0);
    state.skipping = false;
    start = newline + 1;
  }
  const tail = chunk.subarray(start);
  if (state.skipping) return;
  if (state.rest.length + tail.length > MAX_LINE_BYTES) {
    state.rest = Buffer.alloc(0);
    state.skipping = true;
  } else {
    state.rest = Buffer.concat([state.rest, tail]);
  }
}

/** Waits for the next change in the watched directories, a poll interval, or the end of the subscription. */
class Wakeup {
  private readonly watchers = new Map<string, FSWatcher>();
  private wakeNow: (() => void) | undefined;
  private changed = false;

  constructor(private readonly signal: AbortSignal) {
    signal.addEventListener('abort', () => this.fire(), { once: true });
  }

  watch(directory: string): void {
    if (this.watchers.has(directory)) return;
    try {
      const watcher = watch(directory, { persistent: false }, () => this.fire());
      watcher.on('error', () => {
        watcher.close();
        this.watchers.delete(directory);
      });
      this.watchers.set(directory, watcher);
    } catch {
      // Gone meanwhile (swept): the poll finds what comes next.
    }
  }

  async next(pollMs: number): Promise<void> {
    if (this.changed || this.signal.aborted) {
      this.changed = false;
      return;
    }
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, pollMs);
      // A reader never keeps its process alive by itself.
      timer.unref();
      this.wakeNow = () => {
        clearTimeout(timer);
        resolve();
      };
    });
    this.wakeNow = undefined;
    this.changed = false;
  }

  close(): void {
    for (const watcher of this.watchers.values()) watcher.close();
    this.watchers.clear();
  }

  private fire(): void {
    this.changed = true;
    this.wakeNow?.();
  }
}
