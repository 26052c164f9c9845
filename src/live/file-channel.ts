// Node: the file transport of live output, for embedded mode and any single host: nothing to install and no process
// to run. The worker appends each call attempt's events to its own file (writes coalesced a few milliseconds); the CLI
// reads them with fs.watch from a byte offset, so a reconnect resumes where it left off. Old files are swept.
import { constants } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { mkdir, open, readdir, rmdir, stat, unlink } from 'node:fs/promises';
import path from 'node:path';
import type { LiveChannel, LivePublisher, LiveSubscription } from './live-channel.js';
import type { LiveCallIdentity, LiveEvent, LivePayload } from './live-event.js';
import { attemptFile, liveRoot } from './file-layout.js';
import { subscribeToFiles } from './file-subscription.js';

/** Options of `createFileLiveChannel`. */
export interface FileLiveChannelOptions {
  /** The state directory; events go under its `live/`. */
  stateDir: string;
  /** Bytes one attempt's file may hold; deltas past it are dropped (its start, end and failure are still written). */
  maxAttemptBytes: number;
  /** How long files are kept after their last write (default one hour). */
  keepMs?: number;
  /** Sweep files older than `keepMs` now and every few minutes (the worker's channel); off by default. */
  sweep?: boolean;
  /** Where the one warning of a failing publisher goes (the worker's log). */
  warn?: (line: string) => void;
  /** How long writes are held to be coalesced (default 5 ms). */
  coalesceMs?: number;
}

/** How long an attempt's file is kept after its last write: long enough for a `watch` started after the call. */
export const LIVE_FILES_KEEP_MS = 60 * 60 * 1000;
const SWEEP_EVERY_MS = 5 * 60 * 1000;
// Start, end, failure and supersession are a few hundred bytes: they are written even past the cap.
const CONTROL_SLACK_BYTES = 64 * 1024;
const WRITE_FLAGS = constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW;

/** The file transport under `options.stateDir`. */
export function createFileLiveChannel(options: FileLiveChannelOptions): LiveChannel {
  const root = liveRoot(options.stateDir);
  const keepMs = options.keepMs ?? LIVE_FILES_KEEP_MS;
  const warn = options.warn ?? ((line: string) => console.warn(line));
  let warned = false;
  const warnOnce = (error: unknown): void => {
    if (warned) return;
    warned = true;
    warn(`live output: could not write under ${root} (${error instanceof Error ? error.message : String(error)})`);
  };
  const sweepNow = (): void => void sweepLiveFiles(root, keepMs).catch(warnOnce);
  const timer = options.sweep ? setInterval(sweepNow, SWEEP_EVERY_MS) : undefined;
  timer?.unref();
  if (options.sweep) sweepNow();
  return {
    publisher: (call) =>
      new FilePublisher(attemptFile(root, call), call, options.maxAttemptBytes, options.coalesceMs ?? 5, warnOnce),
    subscribe: (workflowId: string, subscription: LiveSubscription): AsyncIterable<LiveEvent> =>
      subscribeToFiles(root, workflowId, subscription),
    close: async () => clearInterval(timer),
  };
}

/** One attempt's file, appended to in coalesced writes; after a failure it drops everything quietly. */
class FilePublisher implements LivePublisher {
  private seq = 0;
  private bytes = 0;
  private pending: string[] = [];
  private timer: NodeJS.Timeout | undefined;
  private writes: Promise<void> = Promise.resolve();
  private handle: Promise<FileHandle> | undefined;
  private broken = false;

  constructor(
    private readonly file: string,
    private readonly call: LiveCallIdentity,
    private readonly maxBytes: number,
    private readonly coalesceMs: number,
    private readonly warn: (error: unknown) => void,
  ) {}

  publish(payload: LivePayload): void {
    if (this.broken) return;
    const line = `${JSON.stringify({ ...this.call, seq: this.seq, at: Date.now(), ...payload })}\n`;
    const size = Buffer.byteLength(line);
    const delta = payload.kind === 'text' || payload.kind === 'reasoning' || payload.kind === 'tool_arguments';
    if (this.bytes + size > this.maxBytes + (delta ? 0 : CONTROL_SLACK_BYTES)) return;
    this.seq += 1;
    this.bytes += size;
    this.pending.push(line);
    this.timer ??= setTimeout(() => this.flush(), this.coalesceMs);
  }

  async close(): Promise<void> {
    this.flush();
    await this.writes;
    const handle = this.handle;
    this.handle = undefined;
    await handle?.then((opened) => opened.close()).catch(() => undefined);
  }

  private flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.pending.length === 0) return;
    const data = this.pending.join('');
    this.pending = [];
    this.writes = this.writes
      .then(async () => {
        if (this.broken) return;
        await (await this.opened()).write(data);
      })
      .catch((error: unknown) => {
        this.broken = true;
        this.warn(error);
      });
  }

  private opened(): Promise<FileHandle> {
    this.handle ??= mkdir(path.dirname(this.file), { recursive: true, mode: 0o700 }).then(() =>
      open(this.file, WRITE_FLAGS, 0o600),
    );
    return this.handle;
  }
}

/** Deletes attempt files last written more than `keepMs` ago under `root`, and the directories left empty. */
export async function sweepLiveFiles(root: string, keepMs: number, now = Date.now()): Promise<number> {
  let removed = 0;
  const walk = async (directory: string, depth: number): Promise<boolean> => {
    const entries = await readdir(directory, { withFileTypes: true }).catch(() => []);
    let left = entries.length;
    for (const entry of entries) {
      const entryPath = path.join(directory, entry.name);
      if (entry.isDirectory() && depth < 2) {
        if (await walk(entryPath, depth + 1)) left -= 1;
      } else if (entry.isFile() && depth === 2 && entry.name.endsWith('.ndjson')) {
        const info = await stat(entryPath).catch(() => undefined);
        if (
          info &&
          now - info.mtimeMs > keepMs &&
          (await unlink(entryPath).then(
            () => true,
            () => false,
          ))
        ) {
          removed += 1;
          left -= 1;
        }
      }
    }
    // A directory is removed only when empty; a call that starts meanwhile recreates its own.
    return (
      depth > 0 &&
      left === 0 &&
      (await rmdir(directory).then(
        () => true,
        () => false,
      ))
    );
  };
  await walk(root, 0);
  return removed;
}
