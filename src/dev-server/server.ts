// The embedded Temporal server: `temporal server start-dev` with SQLite under the state directory, started once for
// every CLI of this user and found again through the state record.
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Connection } from '@temporalio/client';
import type { DirectoryEnvironment } from '../host/state-dir.js';
import type { TemporalBinary } from '../host/temporal-binary.js';
import { DevServerError } from './errors.js';
import { withStateLock } from './lock.js';
import { codecPortFromEnv, DEFAULT_DEV_PORT, freePort, HOST, HTTP_API_HOST, isPortFree, portFromEnv } from './ports.js';
import { isOurProcess, logTail, logToStderr, spawnDetached, terminate } from './processes.js';
import { ensureSearchAttributes, searchAttributeArgs } from './search-attributes.js';
import { prepareStateDir, readRecord, updateRecord } from './state-record.js';
import type { DevServerLocation, ServerRecord } from './state-record.js';

const START_TIMEOUT_MS = 60_000;
const STOP_GRACE_MS = 10_000;

/** Options of `ensureDevServer`. */
export interface EnsureDevServerOptions extends DevServerLocation {
  /** gRPC port (default `DURABLE_AGENT_DEV_PORT` or 7233). */
  port?: number;
  /** Web UI port (default `DURABLE_AGENT_DEV_UI_PORT`, else port + 1000, i.e. 8233). */
  uiPort?: number;
  /** Port of the frontend's HTTP API, which `status` and `list` read (default `DURABLE_AGENT_DEV_HTTP_PORT`, else a free one). */
  httpPort?: number;
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
  /** The frontend's HTTP API (`http://127.0.0.1:<port>`); empty for a server started before it was recorded. */
  httpUrl: string;
  pid: number;
  /** False when this call started the server. */
  reused: boolean;
  logFile: string;
  stateDir: string;
}

/** Starts the embedded dev server, or returns the one already running; resolves once its frontend answers. */
export async function ensureDevServer(options: EnsureDevServerOptions = {}): Promise<DevServerInfo> {
  const { server, connection } = await openDevServer(options);
  await connection.close();
  return server;
}

/**
 * `ensureDevServer` that hands over the connection which found the server ready (the caller closes it), so a command
 * talks to the server over the one connection it opened.
 */
export async function openDevServer(
  options: EnsureDevServerOptions = {},
): Promise<{ server: DevServerInfo; connection: Connection }> {
  const env = options.env ?? process.env;
  const log = options.log ?? logToStderr;
  const directory = await prepareStateDir(options);
  const timeoutMs = options.startTimeoutMs ?? START_TIMEOUT_MS;

  const existing = await runningServer(directory);
  if (existing) return await reuseServer(existing, directory, timeoutMs);

  // Resolving the binary may build it for minutes; done before taking the lock so other invocations are not held up.
  const binary = options.binary
    ? await explicitBinary(options.binary, env)
    : await (await import('../host/temporal-binary.js')).findTemporalBinary({ build: options.build ?? true, log, env });

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
    const httpPort = options.httpPort ?? portFromEnv(env, 'DURABLE_AGENT_DEV_HTTP_PORT') ?? (await freePort());
    for (const [what, candidate, variable] of [
      ['gRPC', port, 'DURABLE_AGENT_DEV_PORT'],
      ['Web UI', uiPort, 'DURABLE_AGENT_DEV_UI_PORT'],
      ['HTTP API', httpPort, 'DURABLE_AGENT_DEV_HTTP_PORT'],
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
    const command = [binary.path, ...temporalServerArgs({ port, uiPort, httpPort, dbFile, namespace, codecUrl })];
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
      httpUrl: `http://${HOST}:${httpPort}`,
      dbFile,
      binary,
    };
    await updateRecord(directory, (state) => ({ ...state, server: record }));
    let connection: Connection;
    try {
      connection = await connectWhenReady({ address, namespace, timeoutMs, logFile, exited: child.exited });
    } catch (error) {
      await terminate(record, STOP_GRACE_MS);
      await updateRecord(directory, ({ server: _server, ...rest }) => rest);
      throw error;
    }
    const server = { ...infoOf(record, directory), reused: false };
    return { server, connection };
  });
}

/**
 * Arguments of `temporal server start-dev` for one server: SQLite file, ports, namespace, agent search attributes,
 * the Web UI's codec endpoint, eager activity dispatch.
 */
export function temporalServerArgs(options: {
  port: number;
  uiPort: number | null;
  /** Port of the HTTP API (default: one the server picks, which nobody then knows). */
  httpPort?: number;
  dbFile: string;
  namespace?: string;
  /** The codec endpoint the Web UI decodes payloads with (only with a UI). */
  codecUrl?: string;
}): string[] {
  const args = ['server', 'start-dev', '--ip', HOST, '--port', String(options.port), '--db-filename', options.dbFile];
  args.push(...(options.uiPort === null ? ['--headless'] : ['--ui-port', String(options.uiPort)]));
  if (options.uiPort !== null && options.codecUrl) args.push('--ui-codec-endpoint', options.codecUrl);
  if (options.httpPort !== undefined) args.push('--http-port', String(options.httpPort));
  // A workflow task that schedules an activity gets it back in the same round trip when this worker can run it:
  // one model call or tool call per step saves a task-queue dispatch each.
  args.push('--dynamic-config-value', 'system.enableActivityEagerExecution=true');
  // The HTTP API cannot be turned off (start-dev opens it on a free port when not given one); it answers only the
  // Host this CLI sends, which no browser can: a page's simple POST and a DNS-rebound name are both refused.
  args.push('--dynamic-config-value', `frontend.httpAllowedHosts=${JSON.stringify([HTTP_API_HOST])}`);
  // Write-ahead logging: a commit appends to the log instead of rewriting pages, about a third less server CPU a step.
  // `synchronous=normal` keeps the database consistent through a crash of the server or of this machine's processes;
  // only a power cut can lose the last commits, a trade a single-user embedded server can make (a cluster uses
  // PostgreSQL).
  args.push('--sqlite-pragma', 'journal_mode=wal', '--sqlite-pragma', 'synchronous=normal');
  // `default` always exists; naming it again is redundant.
  if (options.namespace && options.namespace !== 'default') args.push('--namespace', options.namespace);
  args.push(...searchAttributeArgs());
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

/** Polls until the frontend answers for `namespace`, making sure the agent search attributes exist there. */
export async function waitForTemporalServer(options: WaitForTemporalServerOptions): Promise<void> {
  await (await connectWhenReady(options)).close();
}

/** `waitForTemporalServer` that returns the connection which got the answer, open. */
async function connectWhenReady(options: WaitForTemporalServerOptions): Promise<Connection> {
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
    let connection: Connection | undefined;
    try {
      // Loaded here: the modules that only find or supervise what runs (a CLI following a run) need no client.
      const { Connection } = await import('@temporalio/client');
      connection = await Connection.connect({ address: options.address, connectTimeout: 2_000 });
      const ready = connection;
      // Listing the namespace's search attributes fails until the namespace exists: one call checks both.
      await ready.withDeadline(Date.now() + 5_000, () => ensureSearchAttributes(ready, options.namespace));
      return ready;
    } catch (error) {
      await connection?.close();
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

async function reuseServer(
  record: ServerRecord,
  directory: string,
  timeoutMs: number,
): Promise<{ server: DevServerInfo; connection: Connection }> {
  // A server another invocation just started may still be migrating its database.
  const connection = await connectWhenReady({
    address: record.address,
    namespace: record.namespace,
    timeoutMs,
    logFile: record.logFile,
  });
  return { server: { ...infoOf(record, directory), reused: true }, connection };
}

function infoOf(record: ServerRecord, directory: string): Omit<DevServerInfo, 'reused'> {
  return {
    address: record.address,
    namespace: record.namespace,
    uiUrl: record.uiUrl,
    codecUrl: record.codecUrl ?? '',
    httpUrl: record.httpUrl ?? '',
    pid: record.pid,
    logFile: record.logFile,
    stateDir: directory,
  };
}

/** The recorded server when it is still our process. */
export async function runningServer(directory: string): Promise<ServerRecord | undefined> {
  const { server } = await readRecord(directory);
  return server && (await isOurProcess(server)) ? server : undefined;
}

async function explicitBinary(file: string, env: DirectoryEnvironment): Promise<TemporalBinary> {
  const { checkTemporalBinary } = await import('../host/temporal-binary.js');
  const checked = await checkTemporalBinary(file, env);
  if (!checked.ok) throw new DevServerError(`${file} is not a working Temporal CLI (${checked.reason}).`);
  return { path: file, source: 'env', version: checked.version };
}
