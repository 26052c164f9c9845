// `dev-server --status` and `--stop`: what the state record says is running, checked against the process table.
import fs from 'node:fs';
import { withStateLock } from './lock.js';
import { codecPortFromEnv, DEFAULT_DEV_PORT, HOST, portFromEnv } from './ports.js';
import { isOurProcess, terminate } from './processes.js';
import { readRecord, stateDirectoryOf, writeRecord } from './state-record.js';
import type { DevServerLocation } from './state-record.js';

const STOP_GRACE_MS = 10_000;

/** `durable-agent dev-server --status --json`. */
export interface DevServerStatus {
  address: string;
  namespace: string;
  uiUrl: string;
  /** The frontend's HTTP API; empty when no server is recorded or its record predates it. */
  httpUrl: string;
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

/** Where the embedded server is (or would be) and whether it, its worker and its codec endpoint are running. */
export async function devServerStatus(options: DevServerLocation = {}): Promise<DevServerStatus> {
  const env = options.env ?? process.env;
  const directory = stateDirectoryOf(options);
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
    httpUrl: state.server?.httpUrl ?? '',
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
  const directory = stateDirectoryOf(options);
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
