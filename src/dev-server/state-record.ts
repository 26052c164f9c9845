// <stateDir>/dev-server.json: which server, worker and codec endpoint this state directory started, written whole
// (write-then-rename) so a reader never sees half a file.
import { randomUUID } from 'node:crypto';
import fsp from 'node:fs/promises';
import path from 'node:path';
import type { TemporalBinary } from '../host/temporal-binary.js';
import { stateDir as defaultStateDir } from '../host/state-dir.js';
import type { DirectoryEnvironment } from '../host/state-dir.js';

/** Options shared by every dev-server operation. */
export interface DevServerLocation {
  /** Directory of the database, logs and pid metadata (default: `stateDir()`). */
  stateDir?: string;
  /** Environment for defaults and child processes (default `process.env`). */
  env?: DirectoryEnvironment;
}

/** A process this state directory started. */
export interface ProcessRecord {
  pid: number;
  /** The exact argv, compared with /proc/<pid>/cmdline to tell our process from a reused pid. */
  command: string[];
  logFile: string;
  startedAt: string;
  /** For workers: a hash of the configuration the worker was started with (see EnsureDevWorkerOptions). */
  configuration?: string;
}

/** The server's process and where it answers. */
export interface ServerRecord extends ProcessRecord {
  address: string;
  namespace: string;
  uiUrl: string;
  port: number;
  uiPort: number | null;
  /** Empty when the UI was started without a codec endpoint (and in records written before there was one). */
  codecUrl?: string;
  /** The frontend's HTTP API (`http://127.0.0.1:<port>`); absent in records written before it was recorded. */
  httpUrl?: string;
  dbFile: string;
  binary: TemporalBinary;
}

/** The whole record file. */
export interface StateRecord {
  server?: ServerRecord;
  worker?: ProcessRecord;
  codec?: ProcessRecord;
}

/** The state directory of `options`, without creating it. */
export function stateDirectoryOf(options: DevServerLocation): string {
  return options.stateDir ?? defaultStateDir(options.env ?? process.env);
}

/** The state directory of `options`, created (with its logs directory) when missing. */
export async function prepareStateDir(options: DevServerLocation): Promise<string> {
  const directory = stateDirectoryOf(options);
  await fsp.mkdir(path.join(directory, 'logs'), { recursive: true, mode: 0o700 });
  return directory;
}

function recordFile(directory: string): string {
  return path.join(directory, 'dev-server.json');
}

/** The record, or an empty one when there is none (or it cannot be read). */
export async function readRecord(directory: string): Promise<StateRecord> {
  try {
    return JSON.parse(await fsp.readFile(recordFile(directory), 'utf8')) as StateRecord;
  } catch {
    return {};
  }
}

/** Replaces the record. */
export async function writeRecord(directory: string, state: StateRecord): Promise<void> {
  // Write-then-rename: a reader never sees half a file.
  const temporary = `${recordFile(directory)}.${process.pid}.${randomUUID()}.tmp`;
  await fsp.writeFile(temporary, `${JSON.stringify(state, null, 2)}\n`, { mode: 0o600 });
  await fsp.rename(temporary, recordFile(directory));
}

/** Reads, changes and writes the record (callers hold the state lock). */
export async function updateRecord(directory: string, change: (state: StateRecord) => StateRecord): Promise<void> {
  await writeRecord(directory, change(await readRecord(directory)));
}
