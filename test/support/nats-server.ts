// A NATS server with JetStream for tests: the cluster's binary (built once with `go install` into the cache), its
// configuration, a port and a store directory of the test's own; stopped and started again on the same port and store.
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { findClusterProgram, NATS_SERVER } from '../../src/cluster/binaries.js';
import { natsServerConfig } from '../../src/cluster/nats-config.js';
import { HOST, isListening } from '../../src/dev-server/ports.js';
import { findFreePort } from './ports.js';
import { waitFor } from './wait.js';

export interface TestNatsServer {
  url: string;
  token: string;
  stop(): Promise<void>;
  start(): Promise<void>;
  remove(): Promise<void>;
}

export async function startTestNatsServer(): Promise<TestNatsServer> {
  const binary = await findClusterProgram(NATS_SERVER, { log: (line) => console.error(line) });
  const directory = await fs.mkdtemp(path.join(os.tmpdir(), 'nats-test-'));
  const port = await findFreePort();
  const token = 'test-token-' + Math.random().toString(16).slice(2);
  const config = path.join(directory, 'nats.conf');
  await fs.writeFile(config, natsServerConfig({ host: HOST, port, storeDir: path.join(directory, 'js'), token }));
  let child: ChildProcess | undefined;
  const start = async () => {
    child = spawn(binary, ['-c', config], { stdio: 'ignore' });
    await waitFor(async () => (await isListening(HOST, port)) || undefined, `nats-server on port ${port}`, {
      timeoutMs: 20_000,
    });
  };
  const stop = async () => {
    const running = child;
    child = undefined;
    if (!running || running.exitCode !== null) return;
    const exited = new Promise((resolve) => running.once('exit', resolve));
    running.kill('SIGKILL');
    await exited;
  };
  await start();
  return {
    url: `nats://${HOST}:${port}`,
    token,
    start,
    stop,
    remove: async () => {
      await stop();
      await fs.rm(directory, { recursive: true, force: true });
    },
  };
}
