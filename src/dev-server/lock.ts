// <stateDir>/dev-server.lock: one CLI at a time starts, replaces or stops the embedded processes. A lock left by a
// process that died (or held far too long) is broken, by exactly one contender.
import { randomUUID } from 'node:crypto';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { DevServerError } from './errors.js';
import { isProcessAlive } from './processes.js';

const LOCK_WAIT_MS = 3 * 60_000;
const LOCK_MAX_AGE_MS = 10 * 60_000;

interface LockContent {
  pid: number;
  token: string;
  createdAt: number;
}

/** Runs `action` while holding `<stateDir>/dev-server.lock` (O_EXCL), so concurrent CLIs never start two servers. */
export async function withStateLock<T>(directory: string, action: () => Promise<T>): Promise<T> {
  const lockFile = path.join(directory, 'dev-server.lock');
  const mine: LockContent = { pid: process.pid, token: randomUUID(), createdAt: Date.now() };
  const deadline = Date.now() + LOCK_WAIT_MS;
  for (;;) {
    try {
      await fsp.writeFile(lockFile, JSON.stringify(mine), { flag: 'wx', mode: 0o600 });
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const holder = await readLock(lockFile);
    if (holder === 'missing') continue;
    if (await isStaleLock(lockFile, holder)) {
      await breakStaleLock(lockFile, holder);
      continue;
    }
    if (Date.now() >= deadline) {
      const who = holder === 'unreadable' ? 'another process' : `process ${holder.pid}`;
      throw new DevServerError(
        `${lockFile} is held by ${who} for too long; if no durable-agent is starting the dev server, delete that file.`,
      );
    }
    await sleep(150);
  }
  try {
    return await action();
  } finally {
    const holder = await readLock(lockFile);
    if (typeof holder === 'object' && holder.token === mine.token) await fsp.rm(lockFile, { force: true });
  }
}

async function readLock(lockFile: string): Promise<LockContent | 'missing' | 'unreadable'> {
  try {
    const content = JSON.parse(await fsp.readFile(lockFile, 'utf8')) as LockContent;
    return typeof content.pid === 'number' && typeof content.token === 'string' ? content : 'unreadable';
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'missing' : 'unreadable';
  }
}

async function isStaleLock(lockFile: string, holder: LockContent | 'unreadable'): Promise<boolean> {
  if (holder === 'unreadable') {
    // Created but not yet written by its owner, or left half-written by a crash: only the latter is old.
    try {
      return Date.now() - (await fsp.stat(lockFile)).mtimeMs > 10_000;
    } catch {
      return false;
    }
  }
  return !(await isProcessAlive(holder.pid)) || Date.now() - holder.createdAt > LOCK_MAX_AGE_MS;
}

async function breakStaleLock(lockFile: string, stale: LockContent | 'unreadable'): Promise<void> {
  // Rename first: only one contender moves a given lock file away, and it can check what it moved.
  const moved = `${lockFile}.stale-${process.pid}-${randomUUID()}`;
  try {
    await fsp.rename(lockFile, moved);
  } catch {
    return;
  }
  const taken = await readLock(moved);
  const sameLock =
    typeof taken === 'object' && typeof stale === 'object' ? taken.token === stale.token : taken === stale;
  if (!sameLock) {
    // Someone replaced the stale lock with a live one in between: give it back unless the slot is taken again.
    await fsp.link(moved, lockFile).catch(() => undefined);
  }
  await fsp.rm(moved, { force: true });
}
