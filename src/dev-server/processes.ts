// Process lifecycle of the embedded server, worker and codec endpoint: spawned detached with their output in a log, and
// only ever signalled after /proc (or ps) confirms the pid still runs the argv we started.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { DirectoryEnvironment } from '../host/state-dir.js';
import { DevServerError } from './errors.js';
import type { ProcessRecord } from './state-record.js';

const LOG_ROTATE_BYTES = 20 * 1024 * 1024;
// How long a process that is no longer ours by its command line may take to finish exiting.
const EXIT_WAIT_MS = 2_000;

/** A process started by `spawnDetached`. */
export interface SpawnedProcess {
  pid: number;
  /** A description such as "exited with code 1" once the process is gone (observable while this process lives). */
  exited: () => string | undefined;
}

/** A background process being waited for: how to tell it is ready, and how messages name it. */
export interface ReadyWait {
  /** "The codec endpoint" */
  name: string;
  /** "answered on http://…" (what it did not do before it exited) */
  before: string;
  /** "answer on http://…" (what it did not do in time) */
  within: string;
  pid: number;
  timeoutMs: number;
  intervalMs: number;
  logFile: string;
  exited: () => string | undefined;
  ready: () => Promise<boolean>;
  /** Whether the process still runs (default: its pid is alive). */
  alive?: () => Promise<boolean>;
  /** The error a failed wait throws (default: DevServerError). */
  failure?: (message: string, logFile: string) => Error;
}

/** Polls `ready` until it holds; fails with the log's tail when the process exits first or the time runs out. */
export async function waitUntilReady(wait: ReadyWait): Promise<void> {
  const deadline = Date.now() + wait.timeoutMs;
  const fail = wait.failure ?? ((message: string, logFile: string) => new DevServerError(message, logFile));
  const alive = wait.alive ?? (() => isProcessAlive(wait.pid));
  for (;;) {
    if (await wait.ready()) return;
    const exit = wait.exited();
    if (exit !== undefined || !(await alive())) {
      throw fail(
        `${wait.name} ${exit ?? 'exited'} before ${wait.before}.\n${await logTail(wait.logFile)}\nSee ${wait.logFile}`,
        wait.logFile,
      );
    }
    if (Date.now() >= deadline) {
      throw fail(
        `${wait.name} (pid ${wait.pid}) did not ${wait.within} within ${Math.round(wait.timeoutMs / 1000)}s.\n` +
          `${await logTail(wait.logFile)}\nSee ${wait.logFile}`,
        wait.logFile,
      );
    }
    await sleep(wait.intervalMs);
  }
}

/** Starts `command` in its own session with stdout and stderr appended to `logFile`; it outlives this process. */
export async function spawnDetached(
  command: string[],
  options: { cwd: string; env: DirectoryEnvironment; logFile: string },
): Promise<SpawnedProcess> {
  await rotateLog(options.logFile);
  const logFd = fs.openSync(options.logFile, 'a', 0o600);
  let exit: string | undefined;
  try {
    fs.writeSync(logFd, `\n=== ${new Date().toISOString()} starting: ${command.join(' ')}\n`);
    // detached: its own session and process group, so it outlives this CLI and a Ctrl-C in its terminal.
    const child = spawn(command[0]!, command.slice(1), {
      cwd: options.cwd,
      env: options.env as NodeJS.ProcessEnv,
      detached: true,
      stdio: ['ignore', logFd, logFd],
    });
    child.once('exit', (code, signal) => {
      exit = signal ? `was killed by ${signal}` : `exited with code ${code}`;
    });
    const pid = await new Promise<number>((resolve, reject) => {
      child.once('spawn', () => resolve(child.pid!));
      child.once('error', (error) =>
        reject(new DevServerError(`Could not start ${command[0]}: ${error.message}`, options.logFile)),
      );
    });
    child.unref();
    return { pid, exited: () => exit };
  } finally {
    fs.closeSync(logFd);
  }
}

async function rotateLog(logFile: string): Promise<void> {
  try {
    if ((await fsp.stat(logFile)).size > LOG_ROTATE_BYTES) await fsp.rename(logFile, `${logFile}.1`);
  } catch {
    // No log yet.
  }
}

/** The last lines of a log, indented for an error message. */
export async function logTail(logFile: string, lines = 20): Promise<string> {
  try {
    const handle = await fsp.open(logFile, 'r');
    try {
      const { size } = await handle.stat();
      const length = Math.min(size, 8192);
      const buffer = Buffer.alloc(length);
      await handle.read(buffer, 0, length, size - length);
      return buffer
        .toString('utf8')
        .split('\n')
        .filter((line) => line.trim() !== '')
        .slice(-lines)
        .map((line) => `  | ${line}`)
        .join('\n');
    } finally {
      await handle.close();
    }
  } catch {
    return '  (no log output)';
  }
}

/**
 * True only while the pid runs the argv we started, as our user: a recycled pid belongs to someone else, and another
 * user of the machine can start a process with any argv (root may signal it, so being alive proves nothing).
 */
export async function isOurProcess(record: ProcessRecord): Promise<boolean> {
  if (!(await isProcessAlive(record.pid))) return false;
  if (!(await runsAsUs(record.pid))) return false;
  const commandLine = await readCommandLine(record.pid);
  if (commandLine === undefined) return false;
  // ps joins the argv with spaces, so compare word by word there.
  const started = commandLine.exact ? record.command : record.command.join(' ').split(' ');
  return commandLineMatches(commandLine.argv, started);
}

function commandLineMatches(actual: string[], started: string[]): boolean {
  // A script runs as `<interpreter> <script> args…`, so what we started is then a suffix of the command line.
  const offset = actual.length - started.length;
  if (offset >= 0 && started.every((part, index) => actual[offset + index] === part)) return true;
  // A version-manager shim execs the real binary under another argv[0]; the arguments (database path, ports) still
  // pin the process down.
  const [startedProgram, ...startedArgs] = started;
  const [actualProgram, ...actualArgs] = actual;
  return (
    actual.length === started.length &&
    path.basename(actualProgram ?? '') === path.basename(startedProgram ?? '') &&
    startedArgs.every((part, index) => actualArgs[index] === part)
  );
}

/** Whether a process with this pid exists and may be signalled by us. */
export async function isProcessAlive(pid: number): Promise<boolean> {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    // ESRCH: gone. EPERM: alive but another user's, so certainly not a process we started.
    return false;
  }
}

/** Whether the process's real and effective uid are ours (true where there are no uids). */
async function runsAsUs(pid: number): Promise<boolean> {
  const uid = process.getuid?.();
  if (uid === undefined) return true;
  const ids = await readProcess(
    pid,
    'status',
    (status) => /^Uid:\s+(\d+)\s+(\d+)/m.exec(status)?.slice(1).map(Number),
    'ruid=,uid=',
    (line) => line.split(/\s+/).map(Number),
  );
  return ids !== undefined && ids[0] === uid && ids[1] === uid;
}

interface CommandLine {
  argv: string[];
  exact: boolean;
}

async function readCommandLine(pid: number): Promise<CommandLine | undefined> {
  return await readProcess<CommandLine>(
    pid,
    'cmdline',
    // A zombie, or a process on its way out, has an empty command line: it is no longer the one we started.
    (raw) => (raw === '' ? undefined : { argv: raw.replace(/\0$/, '').split('\0'), exact: true }),
    'command=',
    (line) => ({ argv: line.split(' '), exact: false }),
  );
}

/**
 * What `/proc/<pid>/<file>` says of a process (`fromProc`), or without procfs (macOS) what `ps -o <fields>` prints
 * (`fromPs`, given the trimmed line): ps is the portable way to read another process. Undefined when it is gone.
 */
async function readProcess<T>(
  pid: number,
  file: string,
  fromProc: (text: string) => T | undefined,
  fields: string,
  fromPs: (line: string) => T,
): Promise<T | undefined> {
  try {
    return fromProc(await fsp.readFile(`/proc/${pid}/${file}`, 'utf8'));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT' || fs.existsSync('/proc/self')) return undefined;
    // execa is loaded only here, so a command that merely checks its processes does not pay for it where /proc answers.
    const { execa } = await import('execa');
    const result = await execa('ps', ['-o', fields, '-p', String(pid)], { reject: false });
    return result.failed ? undefined : fromPs(result.stdout.trim());
  }
}

/** SIGTERM to the process group, SIGKILL after `graceMs`; resolves once the process is gone (or 5 s after SIGKILL). */
export async function terminate(record: ProcessRecord, graceMs: number): Promise<ProcessRecord> {
  // Each detached child leads its own process group: signalling the group also ends anything it spawned.
  signalGroup(record.pid, 'SIGTERM');
  const deadline = Date.now() + graceMs;
  while (Date.now() < deadline) {
    if (!(await isOurProcess(record))) return await exited(record);
    await sleep(100);
  }
  signalGroup(record.pid, 'SIGKILL');
  const killDeadline = Date.now() + 5_000;
  while (Date.now() < killDeadline && (await isOurProcess(record))) await sleep(100);
  return await exited(record);
}

/**
 * Returns `record` once its process is gone or a zombie. An exiting process drops its command line (so is no longer
 * known as ours) a moment before it has exited: a server still closing its database then would meet the next start.
 */
async function exited(record: ProcessRecord): Promise<ProcessRecord> {
  const deadline = Date.now() + EXIT_WAIT_MS;
  while (Date.now() < deadline && (await isProcessAlive(record.pid))) {
    const state = await readProcess(
      record.pid,
      'stat',
      (text) => text.slice(text.lastIndexOf(')') + 2)[0],
      'state=',
      (line) => line[0],
    );
    if (state === undefined || state === 'Z') break;
    await sleep(20);
  }
  return record;
}

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    try {
      process.kill(pid, signal);
    } catch {
      // Already gone.
    }
  }
}

/** The default progress sink of the dev-server operations. */
export function logToStderr(line: string): void {
  process.stderr.write(`durable-agent: ${line}\n`);
}
