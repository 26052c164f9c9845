// The cluster's background processes: started detached with their output in a log, recognised later by their
// recorded command, waited for until they answer.
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { isOurProcess, logTail, spawnDetached, waitUntilReady } from '../dev-server/processes.js';
import type { ProcessRecord } from '../dev-server/state-record.js';
import type { DirectoryEnvironment } from '../host/state-dir.js';
import { ClusterError } from './errors.js';

const READY_TIMEOUT_MS = 90_000;
const SETTLE_MS = 750;

/** PATH and friends only: the server and the UI read their configuration files, nothing from the caller's shell. */
export function runtimeEnvironment(env: DirectoryEnvironment): Record<string, string> {
  const picked: Record<string, string> = {};
  for (const name of ['PATH', 'HOME', 'TMPDIR', 'TZ', 'LANG']) if (env[name] !== undefined) picked[name] = env[name]!;
  return picked;
}

export async function startProcess(
  command: string[],
  options: { directory: string; env: DirectoryEnvironment; logName: string; cwd?: string },
): Promise<ProcessRecord> {
  const logFile = path.join(options.directory, 'logs', options.logName);
  const child = await spawnDetached(command, { cwd: options.cwd ?? options.directory, env: options.env, logFile });
  // `unshare` runs the program in its own place: the process to recognise later is the program, without the prefix.
  const recorded = command[0] === 'unshare' ? command.slice(2) : command;
  await sleep(SETTLE_MS);
  const exit = child.exited();
  if (exit !== undefined)
    throw new ClusterError(`${path.basename(recorded[0]!)} ${exit}.\n${await logTail(logFile)}\nSee ${logFile}`);
  return { pid: child.pid, command: recorded, logFile, startedAt: new Date().toISOString() };
}

/** Polls `ready` until it holds; fails with the log's tail when the process dies first or the time runs out. */
export async function waitFor(process: ProcessRecord, what: string, ready: () => Promise<boolean>): Promise<void> {
  await waitUntilReady({
    name: path.basename(process.command[0]!),
    before: `it would ${what}`,
    within: what,
    pid: process.pid,
    timeoutMs: READY_TIMEOUT_MS,
    intervalMs: 250,
    logFile: process.logFile,
    exited: () => undefined,
    ready,
    // The recorded command too, not the pid alone: the pid of a process that died may have been given to another.
    alive: () => isOurProcess(process),
    failure: (message) => new ClusterError(message),
  });
}
