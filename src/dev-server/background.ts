// The embedded server's companions, each one detached process recorded in the state directory: the background worker
// (so runs go on after the CLI exits) and the Web UI's codec endpoint. Each gets a defined environment (see
// worker-configuration.ts), not the caller's. A recorded process still running the same command and configuration is
// reused; otherwise it is (re)started under the state lock.
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Connection } from '@temporalio/client';
import { codecConfiguration, codecEnvironment, workerConfiguration, workerEnvironment } from './worker-environment.js';
import { DevServerError } from './errors.js';
import { withStateLock } from './lock.js';
import { HOST, isListening, isPortFree } from './ports.js';
import { isOurProcess, logTail, logToStderr, spawnDetached, terminate, waitUntilReady } from './processes.js';
import { runningServer } from './server.js';
import { prepareStateDir, readRecord, updateRecord } from './state-record.js';
import type { DevServerLocation, ProcessRecord } from './state-record.js';

const WORKER_SETTLE_MS = 750;
const WORKER_POLLER_TIMEOUT_MS = 60_000;
const CODEC_READY_TIMEOUT_MS = 30_000;
const STOP_GRACE_MS = 10_000;

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
  /** A connection to the embedded server to watch for the poller on (default: one opened and closed for it). */
  connection?: Connection;
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

/**
 * Starts the background worker unless the one recorded in the state directory is still running with the same command
 * and configuration. Its environment is `workerEnvironment(env)`; a running worker started with other settings (a
 * newly set OPENAI_API_KEY, another DURABLE_AGENT_ENV_PASS) is replaced, and runs survive the swap.
 */
export async function ensureDevWorker(options: EnsureDevWorkerOptions): Promise<DevWorkerInfo> {
  if (options.command.length === 0) throw new DevServerError('ensureDevWorker needs a command.');
  const directory = await prepareStateDir(options);
  const env = options.env ?? process.env;
  const started = await ensureBackgroundProcess(directory, options, {
    slot: 'worker',
    name: 'background worker',
    logName: 'worker.log',
    environment: workerEnvironment(env),
    configuration: workerConfiguration(env),
    starting: (logFile) => `Starting a background worker (log: ${logFile})`,
  });
  const { record } = started;
  if (options.taskQueue !== undefined) {
    const server = await runningServer(directory);
    if (!server)
      throw new DevServerError('The embedded Temporal server is not running; start it with ensureDevServer first.');
    await waitForPoller({
      connection: options.connection,
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
 * Starts the Web UI's codec endpoint unless the one recorded is still running with the same command and store settings
 * (its environment is `codecEnvironment(env)`), and waits until it answers on `<url>/health`.
 */
export async function ensureDevCodec(options: EnsureDevCodecOptions): Promise<DevCodecInfo> {
  if (options.command.length === 0) throw new DevServerError('ensureDevCodec needs a command.');
  const directory = await prepareStateDir(options);
  const url = new URL(options.url);
  const port = Number(url.port);
  const timeoutMs = options.readyTimeoutMs ?? CODEC_READY_TIMEOUT_MS;
  const env = options.env ?? process.env;
  const started = await ensureBackgroundProcess(directory, options, {
    slot: 'codec',
    name: 'codec endpoint',
    logName: 'codec-server.log',
    environment: codecEnvironment(env),
    configuration: codecConfiguration(env),
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
  const { record } = started;
  // A reused endpoint that accepts connections is ready: asking /health would cost every command an HTTP client load.
  if (!started.reused || !(await isListening(url.hostname, port))) {
    await waitForCodec({
      url: options.url,
      pid: record.pid,
      timeoutMs,
      logFile: record.logFile,
      exited: started.exited,
    });
  }
  return { url: options.url, pid: record.pid, reused: started.reused, logFile: record.logFile };
}

/** What tells one background process apart from the other in the state record and in messages. */
interface BackgroundProcess {
  slot: 'worker' | 'codec';
  /** "background worker": used in "The background worker exited with code 1". */
  name: string;
  logName: string;
  /** The process's whole environment (the state directory is added). */
  environment: Record<string, string>;
  /** A digest of the settings in `environment`: a running process started with another one is replaced. */
  configuration: string;
  starting: (logFile: string) => string;
  /** Runs under the lock just before a new process is spawned. */
  beforeStart?: () => Promise<void>;
}

interface StartedProcess {
  record: ProcessRecord;
  reused: boolean;
  exited: () => string | undefined;
}

/** Reuses the recorded process when it runs the same command and configuration; otherwise (re)starts it. */
async function ensureBackgroundProcess(
  directory: string,
  options: DevServerLocation & {
    command: string[];
    cwd?: string;
    log?: (line: string) => void;
  },
  kind: BackgroundProcess,
): Promise<StartedProcess> {
  const log = options.log ?? logToStderr;
  const reusable = async (current: ProcessRecord | undefined): Promise<StartedProcess | undefined> =>
    current &&
    current.command.join('\0') === options.command.join('\0') &&
    current.configuration === kind.configuration &&
    (await isOurProcess(current))
      ? { record: current, reused: true, exited: () => undefined }
      : undefined;
  // Most commands find it running: that answer needs no lock.
  const running = await reusable((await readRecord(directory))[kind.slot]);
  if (running) return running;

  const started = await withStateLock(directory, async () => {
    const current = (await readRecord(directory))[kind.slot];
    const reused = await reusable(current);
    if (reused) return reused;
    if (current && (await isOurProcess(current))) {
      log(`Replacing the ${kind.name} (pid ${current.pid}): its command or configuration changed`);
      await terminate(current, STOP_GRACE_MS);
    }
    await kind.beforeStart?.();

    const logFile = path.join(directory, 'logs', kind.logName);
    log(kind.starting(logFile));
    // The process finds the same embedded server (and the same default content store) through the same state directory.
    const childEnv = { ...kind.environment, DURABLE_AGENT_STATE_DIR: directory };
    const child = await spawnDetached(options.command, { cwd: options.cwd ?? directory, env: childEnv, logFile });
    const record: ProcessRecord = {
      pid: child.pid,
      command: [...options.command],
      logFile,
      startedAt: new Date().toISOString(),
      configuration: kind.configuration,
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

async function waitForCodec(options: {
  url: string;
  pid: number;
  timeoutMs: number;
  logFile: string;
  exited: () => string | undefined;
}): Promise<void> {
  await waitUntilReady({
    ...options,
    name: 'The codec endpoint',
    before: `it answered on ${options.url}`,
    within: `answer on ${options.url}`,
    intervalMs: 100,
    ready: async () => {
      try {
        const response = await fetch(`${options.url}/health`, { signal: AbortSignal.timeout(2_000) });
        return response.ok;
      } catch {
        return false; // not listening yet
      }
    },
  });
}

async function waitForPoller(options: {
  connection: Connection | undefined;
  address: string;
  namespace: string;
  taskQueue: string;
  pid: number;
  timeoutMs: number;
  logFile: string;
  exited: () => string | undefined;
}): Promise<void> {
  // Loaded here: supervising a running worker and checking the codec endpoint need no client.
  const connection =
    options.connection ??
    (await (
      await import('@temporalio/client')
    ).Connection.connect({ address: options.address, connectTimeout: 5_000 }));
  try {
    await waitUntilReady({
      ...options,
      name: 'The background worker',
      before: `polling ${options.taskQueue}`,
      within: `poll task queue ${options.taskQueue}`,
      intervalMs: 250,
      ready: async () => {
        // 1 = TASK_QUEUE_TYPE_WORKFLOW, 2 = TASK_QUEUE_TYPE_ACTIVITY; either proves the worker is connected.
        for (const taskQueueType of [1, 2]) {
          const response = await connection.workflowService.describeTaskQueue({
            namespace: options.namespace,
            taskQueue: { name: options.taskQueue, kind: 1 },
            taskQueueType,
          });
          if ((response.pollers ?? []).some((poller) => poller.identity?.startsWith(`${options.pid}@`))) return true;
        }
        return false;
      },
    });
  } finally {
    if (!options.connection) await connection.close();
  }
}
