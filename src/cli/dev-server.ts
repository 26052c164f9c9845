// The embedded Temporal dev server, its background worker and the Web UI's codec endpoint: started detached so runs
// outlive the CLI, found again through <stateDir>/dev-server.json, and only ever signalled after /proc confirms the pid
// is still ours.
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Connection } from '@temporalio/client';
import { execa } from 'execa';
import { stateDir as defaultStateDir } from './state-dir.js';
import type { DirectoryEnvironment } from './state-dir.js';
import { checkTemporalBinary, findTemporalBinary } from './temporal-binary.js';
import type { TemporalBinary } from './temporal-binary.js';

/** Search attribute types accepted by `temporal server start-dev --search-attribute`. */
export type SearchAttributeKind = 'Text' | 'Keyword' | 'Int' | 'Double' | 'Bool' | 'Datetime' | 'KeywordList';

/** The ops filters of DESIGN.md that every agent run keeps up to date. */
export const agentSearchAttributes: Readonly<Record<string, SearchAttributeKind>> = {
  AgentStatus: 'Keyword',
  AgentStep: 'Int',
  AgentPendingApprovals: 'Int',
  AgentCostUsd: 'Double',
  AgentModel: 'Keyword',
};

// Wire numbers of temporal.api.enums.v1.IndexedValueType, which the operator service speaks.
const indexedValueTypes: Readonly<Record<SearchAttributeKind, number>> = {
  Text: 1,
  Keyword: 2,
  Int: 3,
  Double: 4,
  Bool: 5,
  Datetime: 6,
  KeywordList: 7,
};

/** Default gRPC port of the embedded server (`DURABLE_AGENT_DEV_PORT` overrides). */
export const DEFAULT_DEV_PORT = 7233;

/** Default Web UI port of the embedded server (`DURABLE_AGENT_DEV_UI_PORT` overrides). */
export const DEFAULT_DEV_UI_PORT = 8233;

/** Default port of the Web UI's codec endpoint (`DURABLE_AGENT_DEV_CODEC_PORT` overrides). */
export const DEFAULT_DEV_CODEC_PORT = 8234;

const HOST = '127.0.0.1';
const START_TIMEOUT_MS = 60_000;
const WORKER_SETTLE_MS = 750;
const WORKER_POLLER_TIMEOUT_MS = 60_000;
const CODEC_READY_TIMEOUT_MS = 30_000;
const STOP_GRACE_MS = 10_000;
const LOCK_WAIT_MS = 3 * 60_000;
const LOCK_MAX_AGE_MS = 10 * 60_000;
const LOG_ROTATE_BYTES = 20 * 1024 * 1024;

/** A failure of the embedded server or worker; `logFile` is where the process wrote its output. */
export class DevServerError extends Error {
  override readonly name = 'DevServerError';

  /** The log that explains the failure, when there is one. */
  readonly logFile: string | undefined;

  constructor(message: string, logFile?: string) {
    super(message);
    this.logFile = logFile;
  }
}

/** Options shared by every dev-server operation. */
export interface DevServerLocation {
  /** Directory of the database, logs and pid metadata (default: `stateDir()`). */
  stateDir?: string;
  /** Environment for defaults and child processes (default `process.env`). */
  env?: DirectoryEnvironment;
}

/** Options of `ensureDevServer`. */
export interface EnsureDevServerOptions extends DevServerLocation {
  /** gRPC port (default `DURABLE_AGENT_DEV_PORT` or 7233). */
  port?: number;
  /** Web UI port (default `DURABLE_AGENT_DEV_UI_PORT`, else port + 1000, i.e. 8233). */
  uiPort?: number;
  /** Namespace to create and register the search attributes in (default `TEMPORAL_NAMESPACE` or `default`). */
  namespace?: string;
  /** Run without the Web UI. */
  headless?: boolean;
  /**
   * Port of the codec endpoint the Web UI is told about (default `DURABLE_AGENT_DEV_CODEC_PORT` or 8234; null: none).
   * The endpoint itself is a separate process, started by `ensureDevCodec`.
   */
  codecPort?: number | null;
  /** A Temporal CLI to use instead of `findTemporalBinary()`. */
  binary?: string;
  /** Whether `findTemporalBinary` may build or download the CLI (default true). */
  build?: boolean;
  /** How long to wait for the frontend to answer (default 60 s). */
  startTimeoutMs?: number;
  /** Receives progress lines (default: stderr). */
  log?: (line: string) => void;
}

/** A running embedded server. */
export interface DevServerInfo {
  address: string;
  namespace: string;
  uiUrl: string;
  /** The codec endpoint the Web UI calls (`http://127.0.0.1:8234`); empty when the UI has none. */
  codecUrl: string;
  pid: number;
  /** False when this call started the server. */
  reused: boolean;
  logFile: string;
  stateDir: string;
}

/** Options of `ensureDevWorker`. */
export interface EnsureDevWorkerOptions extends DevServerLocation {
  /** argv of the worker process, e.g. `[process.execPath, '<repo>/bin/durable-agent.js', 'worker']`. */
  command: string[];
  /** Working directory of the worker (default: the state directory, never a workspace). */
  cwd?: string;
  /**
   * When set, wait until this worker (poller identity `<pid>@…`, the SDK default) polls this task queue
   * of the embedded server's namespace.
   */
  taskQueue?: string;
  /** How long to wait for the poller (default 60 s). */
  readyTimeoutMs?: number;
  /**
   * A digest of the settings the worker reads from its environment (provider, endpoint, key). A running worker started
   * with a different command or digest is replaced, so a newly set OPENAI_API_KEY takes effect; runs survive the swap.
   */
  configuration?: string;
  /** Receives progress lines (default: stderr). */
  log?: (line: string) => void;
}

/** A running background worker. */
export interface DevWorkerInfo {
  pid: number;
  reused: boolean;
  logFile: string;
}

/** Options of `ensureDevCodec`. */
export interface EnsureDevCodecOptions extends DevServerLocation {
  /** argv of the codec endpoint process, e.g. `[node, '<repo>/bin/durable-agent.js', 'codec-server', '--port', '8234']`. */
  command: string[];
  /** Where it answers; `<url>/health` is polled until it does. */
  url: string;
  /** A digest of the settings it reads from its environment (the content store); a change replaces the process. */
  configuration?: string;
  /** How long to wait for `/health` (default 30 s). */
  readyTimeoutMs?: number;
  /** Receives progress lines (default: stderr). */
  log?: (line: string) => void;
}

/** A running codec endpoint. */
export interface DevCodecInfo {
  url: string;
  pid: number;
  reused: boolean;
  logFile: string;
}

/** `durable-agent dev-server --status --json`. */
export interface DevServerStatus {
  address: string;
  namespace: string;
  uiUrl: string;
  server: { pid: number | null; running: boolean };
  worker: { pid: number | null; running: boolean };
  /** The Web UI's codec endpoint; `url` is empty when the UI has none. */
  codec: { url: string; pid: number | null; running: boolean };
}

/** What `stopDevServer` did to each process. */
export interface StopDevServerResult {
  server: { pid: number | null; stopped: boolean };
  worker: { pid: number | null; stopped: boolean };
  codec: { pid: number | null; stopped: boolean };
}

interface ProcessRecord {
  pid: number;
  /** The exact argv, compared with /proc/<pid>/cmdline to tell our process from a reused pid. */
  command: string[];
  logFile: string;
  startedAt: string;
  /** For workers: a hash of the configuration the worker was started with (see EnsureDevWorkerOptions). */
  configuration?: string;
}

interface ServerRecord extends ProcessRecord {
  address: string;
  namespace: string;
  uiUrl: string;
  port: number;
  uiPort: number | null;
  /** Empty when the UI was started without a codec endpoint (and in records written before there was one). */
  codecUrl?: string;
  dbFile: string;
  binary: TemporalBinary;
}

interface StateRecord {
  server?: ServerRecord;
  worker?: ProcessRecord;
  codec?: ProcessRecord;
}

/** Starts the embedded dev server, or returns the one already running; resolves once its frontend answers. */
export async function ensureDevServer(options: EnsureDevServerOptions = {}): Promise<DevServerInfo> {
  const env = options.env ?? process.env;
  const log = options.log ?? logToStderr;
  const directory = await prepareStateDir(options);
  const timeoutMs = options.startTimeoutMs ?? START_TIMEOUT_MS;

  const existing = await runningServer(directory);
  if (existing) return await reuseServer(existing, directory, timeoutMs);

  // Resolving the binary may build it for minutes; done before taking the lock so other invocations are not held up.
  const binary = options.binary
    ? await explicitBinary(options.binary, env)
    : await findTemporalBinary({ build: options.build ?? true, log, env });

  return await withStateLock(directory, async () => {
    const current = await runningServer(directory);
    if (current) return await reuseServer(current, directory, timeoutMs);

    const port = options.port ?? portFromEnv(env, 'DURABLE_AGENT_DEV_PORT') ?? DEFAULT_DEV_PORT;
    const uiPort = options.headless
      ? null
      : (options.uiPort ?? portFromEnv(env, 'DURABLE_AGENT_DEV_UI_PORT') ?? port + 1000);
    const namespace = options.namespace ?? env.TEMPORAL_NAMESPACE ?? 'default';
    const codecPort =
      uiPort === null ? null : options.codecPort === undefined ? codecPortFromEnv(env) : options.codecPort;
    const codecUrl = codecPort === null ? '' : `http://${HOST}:${codecPort}`;
    for (const [what, candidate, variable] of [
      ['gRPC', port, 'DURABLE_AGENT_DEV_PORT'],
      ['Web UI', uiPort, 'DURABLE_AGENT_DEV_UI_PORT'],
    ] as const) {
      if (candidate !== null && !(await isPortFree(candidate))) {
        throw new DevServerError(
          `Port ${candidate} (${what}) on ${HOST} is in use by another process, not by durable-agent's dev server. ` +
            `Set ${variable} to a free port, or TEMPORAL_ADDRESS to use the server that is listening there.`,
        );
      }
    }

    const dbFile = path.join(directory, 'temporal.db');
    const logFile = path.join(directory, 'logs', 'temporal-server.log');
    const command = [binary.path, ...temporalServerArgs({ port, uiPort, dbFile, namespace, codecUrl })];
    log(`Starting the Temporal dev server on ${HOST}:${port} (log: ${logFile})`);
    const child = await spawnDetached(command, { cwd: directory, env, logFile });
    const address = `${HOST}:${port}`;
    const record: ServerRecord = {
      pid: child.pid,
      command,
      logFile,
      startedAt: new Date().toISOString(),
      address,
      namespace,
      uiUrl: uiPort === null ? '' : `http://${HOST}:${uiPort}`,
      port,
      uiPort,
      codecUrl,
      dbFile,
      binary,
    };
    await updateRecord(directory, (state) => ({ ...state, server: record }));
    try {
      await waitForTemporalServer({ address, namespace, timeoutMs, logFile, exited: child.exited });
    } catch (error) {
      await terminate(record, STOP_GRACE_MS);
      await updateRecord(directory, ({ server: _server, ...rest }) => rest);
      throw error;
    }
    return {
      address,
      namespace,
      uiUrl: record.uiUrl,
      codecUrl,
      pid: child.pid,
      reused: false,
      logFile,
      stateDir: directory,
    };
  });
}

/** Starts the background worker unless the one recorded in the state directory is still running. */
export async function ensureDevWorker(options: EnsureDevWorkerOptions): Promise<DevWorkerInfo> {
  if (options.command.length === 0) throw new DevServerError('ensureDevWorker needs a command.');
  const directory = await prepareStateDir(options);
  const started = await ensureBackgroundProcess(directory, options, {
    slot: 'worker',
    name: 'background worker',
    logName: 'worker.log',
    starting: (logFile) => `Starting a background worker (log: ${logFile})`,
  });
  const { record } = started;
  if (options.taskQueue !== undefined) {
    const server = await runningServer(directory);
    if (!server)
      throw new DevServerError('The embedded Temporal server is not running; start it with ensureDevServer first.');
    await waitForPoller({
      address: server.address,
      namespace: server.namespace,
      taskQueue: options.taskQueue,
      pid: record.pid,
      timeoutMs: options.readyTimeoutMs ?? WORKER_POLLER_TIMEOUT_MS,
      logFile: record.logFile,
      exited: started.exited,
    });
  }
  return { pid: record.pid, reused: started.reused, logFile: record.logFile };
}

/**
 * Starts the Web UI's codec endpoint unless the one recorded is still running with the same command and configuration,
 * and waits until it answers on `<url>/health`.
 */
export async function ensureDevCodec(options: EnsureDevCodecOptions): Promise<DevCodecInfo> {
  if (options.command.length === 0) throw new DevServerError('ensureDevCodec needs a command.');
  const directory = await prepareStateDir(options);
  const port = Number(new URL(options.url).port);
  const started = await ensureBackgroundProcess(directory, options, {
    slot: 'codec',
    name: 'codec endpoint',
    logName: 'codec-server.log',
    starting: (logFile) => `Starting the Web UI's codec endpoint on ${options.url} (log: ${logFile})`,
    beforeStart: async () => {
      if (!(await isPortFree(port)))
        throw new DevServerError(
          `Port ${port} (codec endpoint) on ${HOST} is in use by another process, not by durable-agent's codec endpoint. ` +
            'Set DURABLE_AGENT_DEV_CODEC_PORT to a free port and restart the dev server (dev-server --stop), ' +
            'so its Web UI is told the new one.',
        );
    },
  });
  await waitForCodec({
    url: options.url,
    pid: started.record.pid,
    timeoutMs: options.readyTimeoutMs ?? CODEC_READY_TIMEOUT_MS,
    logFile: started.record.logFile,
    exited: started.exited,
  });
  return { url: options.url, pid: started.record.pid, reused: started.reused, logFile: started.record.logFile };
}

/** What tells one background process apart from the other in the state record and in messages. */
interface BackgroundProcess {
  slot: 'worker' | 'codec';
  /** "background worker": used in "The background worker exited with code 1". */
  name: string;
  logName: string;
  starting: (logFile: string) => string;
  /** Runs under the lock just before a new process is spawned. */
  beforeStart?: () => Promise<void>;
}

/** Reuses the recorded process when it runs the same command and configuration; otherwise (re)starts it. */
async function ensureBackgroundProcess(
  directory: string,
  options: DevServerLocation & {
    command: string[];
    cwd?: string;
    configuration?: string;
    log?: (line: string) => void;
  },
  kind: BackgroundProcess,
): Promise<{ record: ProcessRecord; reused: boolean; exited: () => string | undefined }> {
  const env = options.env ?? process.env;
  const log = options.log ?? logToStderr;
  const started = await withStateLock(directory, async () => {
    const state = await readRecord(directory);
    const current = state[kind.slot];
    if (current && (await isOurProcess(current))) {
      const same =
        current.command.join('\0') === options.command.join('\0') && current.configuration === options.configuration;
      if (same) return { record: current, reused: true, exited: () => undefined };
      log(`Replacing the ${kind.name} (pid ${current.pid}): its command or configuration changed`);
      await terminate(current, STOP_GRACE_MS);
    }
    await kind.beforeStart?.();

    const logFile = path.join(directory, 'logs', kind.logName);
    log(kind.starting(logFile));
    // The process finds the same embedded server (and the same default content store) through the same state directory.
    const childEnv = { ...env, DURABLE_AGENT_STATE_DIR: directory };
    const child = await spawnDetached(options.command, { cwd: options.cwd ?? directory, env: childEnv, logFile });
    const record: ProcessRecord = {
      pid: child.pid,
      command: [...options.command],
      logFile,
      startedAt: new Date().toISOString(),
      ...(options.configuration !== undefined ? { configuration: options.configuration } : {}),
    };
    await updateRecord(directory, (state) => ({ ...state, [kind.slot]: record }));
    return { record, reused: false, exited: child.exited };
  });

  const { record } = started;
  if (!started.reused) {
    // A process that cannot load its configuration dies at once; report that here rather than as a run that never starts.
    await sleep(WORKER_SETTLE_MS);
    const exit = started.exited();
    if (exit !== undefined) {
      await updateRecord(directory, (state) => {
        const { [kind.slot]: _gone, ...rest } = state;
        return rest;
      });
      throw new DevServerError(
        `The ${kind.name} ${exit}.\n${await logTail(record.logFile)}\nSee ${record.logFile}`,
        record.logFile,
      );
    }
  }
  return started;
}

/** Where the embedded server is (or would be) and whether it, its worker and its codec endpoint are running. */
export async function devServerStatus(options: DevServerLocation = {}): Promise<DevServerStatus> {
  const env = options.env ?? process.env;
  const directory = options.stateDir ?? defaultStateDir(env);
  const state = await readRecord(directory);
  const serverRunning = state.server !== undefined && (await isOurProcess(state.server));
  const workerRunning = state.worker !== undefined && (await isOurProcess(state.worker));
  const codecRunning = state.codec !== undefined && (await isOurProcess(state.codec));
  const port = state.server?.port ?? portFromEnv(env, 'DURABLE_AGENT_DEV_PORT') ?? DEFAULT_DEV_PORT;
  const uiPort = portFromEnv(env, 'DURABLE_AGENT_DEV_UI_PORT') ?? port + 1000;
  return {
    address: state.server?.address ?? `${HOST}:${port}`,
    namespace: state.server?.namespace ?? env.TEMPORAL_NAMESPACE ?? 'default',
    uiUrl: state.server ? state.server.uiUrl : `http://${HOST}:${uiPort}`,
    server: { pid: serverRunning ? state.server!.pid : null, running: serverRunning },
    worker: { pid: workerRunning ? state.worker!.pid : null, running: workerRunning },
    codec: {
      url: state.server ? (state.server.codecUrl ?? '') : `http://${HOST}:${codecPortFromEnv(env)}`,
      pid: codecRunning ? state.codec!.pid : null,
      running: codecRunning,
    },
  };
}

/** Stops the codec endpoint and the worker, then the server: SIGTERM to each process group, SIGKILL after `graceMs`. */
export async function stopDevServer(
  options: DevServerLocation & { graceMs?: number } = {},
): Promise<StopDevServerResult> {
  const directory = options.stateDir ?? defaultStateDir(options.env ?? process.env);
  if (!fs.existsSync(directory))
    return {
      server: { pid: null, stopped: false },
      worker: { pid: null, stopped: false },
      codec: { pid: null, stopped: false },
    };
  const grace = options.graceMs ?? STOP_GRACE_MS;
  return await withStateLock(directory, async () => {
    const state = await readRecord(directory);
    // The worker first: it is a client of the server and would otherwise log connection errors while it winds down.
    const worker = state.worker && (await isOurProcess(state.worker)) ? await terminate(state.worker, grace) : null;
    const codec = state.codec && (await isOurProcess(state.codec)) ? await terminate(state.codec, grace) : null;
    const server = state.server && (await isOurProcess(state.server)) ? await terminate(state.server, grace) : null;
    await writeRecord(directory, {});
    return {
      server: { pid: server?.pid ?? null, stopped: server !== null },
      worker: { pid: worker?.pid ?? null, stopped: worker !== null },
      codec: { pid: codec?.pid ?? null, stopped: codec !== null },
    };
  });
}

/**
 * Arguments of `temporal server start-dev` for one server: SQLite file, ports, namespace, agent search attributes,
 * the Web UI's codec endpoint, eager activity dispatch.
 */
export function temporalServerArgs(options: {
  port: number;
  uiPort: number | null;
  dbFile: string;
  namespace?: string;
  /** The codec endpoint the Web UI decodes payloads with (only with a UI). */
  codecUrl?: string;
}): string[] {
  const args = ['server', 'start-dev', '--ip', HOST, '--port', String(options.port), '--db-filename', options.dbFile];
  args.push(...(options.uiPort === null ? ['--headless'] : ['--ui-port', String(options.uiPort)]));
  if (options.uiPort !== null && options.codecUrl) args.push('--ui-codec-endpoint', options.codecUrl);
  // A workflow task that schedules an activity gets it back in the same round trip when this worker can run it:
  // one model call or tool call per step saves a task-queue dispatch each.
  args.push('--dynamic-config-value', 'system.enableActivityEagerExecution=true');
  // Write-ahead logging: a commit appends to the log instead of rewriting pages, about a third less server CPU a step.
  // `synchronous=normal` keeps the database consistent through a crash of the server or of this machine's processes;
  // only a power cut can lose the last commits, a trade a single-user embedded server can make (a cluster uses
  // PostgreSQL).
  args.push('--sqlite-pragma', 'journal_mode=wal', '--sqlite-pragma', 'synchronous=normal');
  // `default` always exists; naming it again is redundant.
  if (options.namespace && options.namespace !== 'default') args.push('--namespace', options.namespace);
  for (const [name, kind] of Object.entries(agentSearchAttributes)) args.push('--search-attribute', `${name}=${kind}`);
  args.push('--log-level', 'warn');
  return args;
}

/** Options of `waitForTemporalServer`. */
export interface WaitForTemporalServerOptions {
  address: string;
  namespace: string;
  timeoutMs: number;
  /** Named in the timeout error, with its last lines. */
  logFile?: string;
  /** Returns a description once the server process has exited, so waiting stops early. */
  exited?: () => string | undefined;
}

/** Polls until the frontend answers for `namespace`, then makes sure the agent search attributes exist there. */
export async function waitForTemporalServer(options: WaitForTemporalServerOptions): Promise<void> {
  const deadline = Date.now() + options.timeoutMs;
  const seeLog = async () => (options.logFile ? `\n${await logTail(options.logFile)}\nSee ${options.logFile}` : '');
  let lastError = 'no answer yet';
  for (;;) {
    const exit = options.exited?.();
    if (exit !== undefined)
      throw new DevServerError(
        `The Temporal server ${exit} before it answered on ${options.address}.${await seeLog()}`,
        options.logFile,
      );
    try {
      const connection = await Connection.connect({ address: options.address, connectTimeout: 2_000 });
      try {
        await connection.withDeadline(Date.now() + 5_000, () =>
          connection.workflowService.describeNamespace({ namespace: options.namespace }),
        );
        await ensureSearchAttributes(connection, options.namespace);
        return;
      } finally {
        await connection.close();
      }
    } catch (error) {
      lastError = error instanceof Error ? error.message : String(error);
      if (error instanceof DevServerError) throw error;
    }
    if (Date.now() >= deadline) {
      throw new DevServerError(
        `The Temporal server did not answer on ${options.address} (namespace ${options.namespace}) within ${Math.round(options.timeoutMs / 1000)}s; ` +
          `last error: ${lastError}.${await seeLog()}`,
        options.logFile,
      );
    }
    await sleep(250);
  }
}

/** Registers any missing agent search attribute in `namespace`; a same-named attribute of another type is an error. */
export async function ensureSearchAttributes(connection: Connection, namespace: string): Promise<void> {
  const listed = await connection.operatorService.listSearchAttributes({ namespace });
  const existing = { ...listed.systemAttributes, ...listed.customAttributes } as Record<string, number>;
  const missing: Record<string, number> = {};
  for (const [name, kind] of Object.entries(agentSearchAttributes)) {
    const wanted = indexedValueTypes[kind];
    const found = existing[name];
    if (found === undefined) missing[name] = wanted;
    else if (found !== wanted) {
      throw new DevServerError(
        `Search attribute ${name} exists in namespace ${namespace} with another type (IndexedValueType ${found}); it must be ${kind}.`,
      );
    }
  }
  if (Object.keys(missing).length > 0)
    await connection.operatorService.addSearchAttributes({ namespace, searchAttributes: missing });
}

async function reuseServer(record: ServerRecord, directory: string, timeoutMs: number): Promise<DevServerInfo> {
  // A server another invocation just started may still be migrating its database.
  await waitForTemporalServer({
    address: record.address,
    namespace: record.namespace,
    timeoutMs,
    logFile: record.logFile,
  });
  return {
    address: record.address,
    namespace: record.namespace,
    uiUrl: record.uiUrl,
    codecUrl: record.codecUrl ?? '',
    pid: record.pid,
    reused: true,
    logFile: record.logFile,
    stateDir: directory,
  };
}

async function runningServer(directory: string): Promise<ServerRecord | undefined> {
  const { server } = await readRecord(directory);
  return server && (await isOurProcess(server)) ? server : undefined;
}

async function explicitBinary(file: string, env: DirectoryEnvironment): Promise<TemporalBinary> {
  const checked = await checkTemporalBinary(file, env);
  if (!checked.ok) throw new DevServerError(`${file} is not a working Temporal CLI (${checked.reason}).`);
  return { path: file, source: 'env', version: checked.version };
}

async function prepareStateDir(options: DevServerLocation): Promise<string> {
  const directory = options.stateDir ?? defaultStateDir(options.env ?? process.env);
  await fsp.mkdir(path.join(directory, 'logs'), { recursive: true, mode: 0o700 });
  return directory;
}

function codecPortFromEnv(env: DirectoryEnvironment): number {
  return portFromEnv(env, 'DURABLE_AGENT_DEV_CODEC_PORT') ?? DEFAULT_DEV_CODEC_PORT;
}

function portFromEnv(env: DirectoryEnvironment, variable: string): number | undefined {
  const raw = env[variable];
  if (raw === undefined || raw === '') return undefined;
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 1 || port > 65_535)
    throw new DevServerError(`${variable}=${raw} is not a port number (1-65535).`);
  return port;
}

async function isPortFree(port: number): Promise<boolean> {
  return await new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen({ port, host: HOST, exclusive: true }, () => server.close(() => resolve(true)));
  });
}

interface SpawnedProcess {
  pid: number;
  /** A description such as "exited with code 1" once the process is gone (observable while this process lives). */
  exited: () => string | undefined;
}

async function spawnDetached(
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

async function logTail(logFile: string, lines = 20): Promise<string> {
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

async function waitForCodec(options: {
  url: string;
  pid: number;
  timeoutMs: number;
  logFile: string;
  exited: () => string | undefined;
}): Promise<void> {
  const deadline = Date.now() + options.timeoutMs;
  for (;;) {
    try {
      const response = await fetch(`${options.url}/health`, { signal: AbortSignal.timeout(2_000) });
      if (response.ok) return;
    } catch {
      // Not listening yet.
    }
    const exit = options.exited();
    if (exit !== undefined || !(await isProcessAlive(options.pid))) {
      throw new DevServerError(
        `The codec endpoint ${exit ?? 'exited'} before it answered on ${options.url}.\n${await logTail(options.logFile)}\nSee ${options.logFile}`,
        options.logFile,
      );
    }
    if (Date.now() >= deadline) {
      throw new DevServerError(
        `The codec endpoint (pid ${options.pid}) did not answer on ${options.url} within ${Math.round(options.timeoutMs / 1000)}s.\n` +
          `${await logTail(options.logFile)}\nSee ${options.logFile}`,
        options.logFile,
      );
    }
    await sleep(100);
  }
}

async function waitForPoller(options: {
  address: string;
  namespace: string;
  taskQueue: string;
  pid: number;
  timeoutMs: number;
  logFile: string;
  exited: () => string | undefined;
}): Promise<void> {
  const deadline = Date.now() + options.timeoutMs;
  const connection = await Connection.connect({ address: options.address, connectTimeout: 5_000 });
  try {
    for (;;) {
      // 1 = TASK_QUEUE_TYPE_WORKFLOW, 2 = TASK_QUEUE_TYPE_ACTIVITY; either proves the worker is connected.
      for (const taskQueueType of [1, 2]) {
        const response = await connection.workflowService.describeTaskQueue({
          namespace: options.namespace,
          taskQueue: { name: options.taskQueue, kind: 1 },
          taskQueueType,
        });
        if ((response.pollers ?? []).some((poller) => poller.identity?.startsWith(`${options.pid}@`))) return;
      }
      const exit = options.exited();
      if (exit !== undefined || !(await isProcessAlive(options.pid))) {
        throw new DevServerError(
          `The background worker ${exit ?? 'exited'} before polling ${options.taskQueue}.\n${await logTail(options.logFile)}\nSee ${options.logFile}`,
          options.logFile,
        );
      }
      if (Date.now() >= deadline) {
        throw new DevServerError(
          `The background worker (pid ${options.pid}) did not poll task queue ${options.taskQueue} within ${Math.round(options.timeoutMs / 1000)}s.\n` +
            `${await logTail(options.logFile)}\nSee ${options.logFile}`,
          options.logFile,
        );
      }
      await sleep(250);
    }
  } finally {
    await connection.close();
  }
}

/** True only while the pid runs the argv we started: a recycled pid belongs to someone else. */
async function isOurProcess(record: ProcessRecord): Promise<boolean> {
  if (!(await isProcessAlive(record.pid))) return false;
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

async function isProcessAlive(pid: number): Promise<boolean> {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    // ESRCH: gone. EPERM: alive but another user's, so certainly not a process we started.
    return false;
  }
}

async function readCommandLine(pid: number): Promise<{ argv: string[]; exact: boolean } | undefined> {
  try {
    const raw = await fsp.readFile(`/proc/${pid}/cmdline`, 'utf8');
    // A zombie has an empty command line: it has exited.
    if (raw === '') return undefined;
    return { argv: raw.replace(/\0$/, '').split('\0'), exact: true };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT' && !fs.existsSync('/proc/self')) {
      // No procfs (macOS): ps is the portable way to read another process's arguments.
      const result = await execa('ps', ['-o', 'command=', '-p', String(pid)], { reject: false });
      return result.failed ? undefined : { argv: result.stdout.trim().split(' '), exact: false };
    }
    return undefined;
  }
}

async function terminate(record: ProcessRecord, graceMs: number): Promise<ProcessRecord> {
  // Each detached child leads its own process group: signalling the group also ends anything it spawned.
  signalGroup(record.pid, 'SIGTERM');
  const deadline = Date.now() + graceMs;
  while (Date.now() < deadline) {
    if (!(await isOurProcess(record))) return record;
    await sleep(100);
  }
  signalGroup(record.pid, 'SIGKILL');
  const killDeadline = Date.now() + 5_000;
  while (Date.now() < killDeadline && (await isOurProcess(record))) await sleep(100);
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

function recordFile(directory: string): string {
  return path.join(directory, 'dev-server.json');
}

async function readRecord(directory: string): Promise<StateRecord> {
  try {
    return JSON.parse(await fsp.readFile(recordFile(directory), 'utf8')) as StateRecord;
  } catch {
    return {};
  }
}

async function writeRecord(directory: string, state: StateRecord): Promise<void> {
  // Write-then-rename: a reader never sees half a file.
  const temporary = `${recordFile(directory)}.${process.pid}.${randomUUID()}.tmp`;
  await fsp.writeFile(temporary, `${JSON.stringify(state, null, 2)}\n`, { mode: 0o600 });
  await fsp.rename(temporary, recordFile(directory));
}

async function updateRecord(directory: string, change: (state: StateRecord) => StateRecord): Promise<void> {
  await writeRecord(directory, change(await readRecord(directory)));
}

interface LockContent {
  pid: number;
  token: string;
  createdAt: number;
}

/** Runs `action` while holding `<stateDir>/dev-server.lock` (O_EXCL), so concurrent CLIs never start two servers. */
async function withStateLock<T>(directory: string, action: () => Promise<T>): Promise<T> {
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

function logToStderr(line: string): void {
  process.stderr.write(`durable-agent: ${line}\n`);
}
