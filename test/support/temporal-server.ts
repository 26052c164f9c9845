// One real Temporal dev server for tests: free ports, SQLite in a temp dir, the agent search attributes registered.
// The binary comes from findTemporalBinary (building it if needed), never from the SDK's download.
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { temporalServerArgs, waitForTemporalServer } from '../../src/dev-server/index.js';
import { findTemporalBinary } from '../../src/host/temporal-binary.js';
import { watchChild } from './child-process.js';
import { findFreePorts } from './ports.js';
import type { WatchedChild } from './child-process.js';

/** A running test server. */
export interface TestTemporalServer {
  address: string;
  namespace: string;
  uiUrl: string;
  /** The server's output, for debugging a failing test. */
  logFile: string;
  /** Stops the server and removes its temp directory. */
  stop(): Promise<void>;
}

/** Options of `startTestTemporalServer`. */
export interface StartTestTemporalServerOptions {
  /** Start the Web UI too (default true: handy when a workflow test needs inspecting). */
  ui?: boolean;
  /** Receives provisioning progress (default: stderr). */
  log?: (line: string) => void;
  /** The codec endpoint the Web UI decodes payloads with. */
  codecUrl?: string;
}

/** Starts a dev server owned by this process; it dies with `stop()` (or with the process group). */
export async function startTestTemporalServer(
  options: StartTestTemporalServerOptions = {},
): Promise<TestTemporalServer> {
  const { kill: _kill, restart: _restart, ...server } = await startRestartableTemporalServer(options);
  return server;
}

/** A test server that can be killed and started again on the same ports and SQLite file. */
export interface RestartableTemporalServer extends TestTemporalServer {
  /** SIGKILLs the server and waits for it to exit; its directory and database stay. */
  kill: () => Promise<void>;
  /** Starts the server again on the same ports and database file, and waits until it serves. */
  restart: () => Promise<void>;
}

/** Starts a dev server whose SQLite file outlives its process, so a test can kill it mid-run and restart it. */
export async function startRestartableTemporalServer(
  options: StartTestTemporalServerOptions = {},
): Promise<RestartableTemporalServer> {
  const log = options.log ?? ((line: string) => process.stderr.write(`[temporal] ${line}\n`));
  const binary = await findTemporalBinary({ build: true, log });
  const directory = await fsp.mkdtemp(path.join(os.tmpdir(), 'durable-agent-temporal-'));
  // Every port is picked here, as the embedded dev server picks its own, rather than left to the server.
  const [port, uiPort, httpPort] = (await findFreePorts(3)) as [number, number, number];
  const withUi = options.ui ?? true;
  const namespace = 'default';
  const logFile = path.join(directory, 'server.log');
  const address = `127.0.0.1:${port}`;
  const args = temporalServerArgs({
    port,
    uiPort: withUi ? uiPort : null,
    httpPort,
    dbFile: path.join(directory, 'temporal.db'),
    namespace,
    ...(options.codecUrl ? { codecUrl: options.codecUrl } : {}),
  });

  const spawnServer = async (): Promise<{ child: ChildProcess; watched: WatchedChild }> => {
    const logFd = fs.openSync(logFile, 'a');
    const child = spawn(binary.path, args, { cwd: directory, stdio: ['ignore', logFd, logFd] });
    fs.closeSync(logFd);
    const watched = watchChild(child, directory);
    try {
      await waitForTemporalServer({ address, namespace, timeoutMs: 60_000, logFile, exited: watched.exit });
    } catch (error) {
      await watched.stop();
      throw error;
    }
    return { child, watched };
  };

  let current = await spawnServer();
  return {
    address,
    namespace,
    uiUrl: withUi ? `http://127.0.0.1:${uiPort}` : '',
    logFile,
    stop: () => current.watched.stop(),
    kill: async () => {
      const exited = new Promise((resolve) => current.child.once('exit', resolve));
      if (current.watched.exit() === undefined) current.child.kill('SIGKILL');
      if (current.watched.exit() === undefined) await exited;
    },
    restart: async () => {
      current = await spawnServer();
    },
  };
}
