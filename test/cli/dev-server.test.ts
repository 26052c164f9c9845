import { execFile, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import fs from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Connection } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { codecProcessCommand } from '../../src/cli/connect.js';
import {
  DevServerError,
  devServerStatus,
  ensureDevCodec,
  ensureDevServer,
  ensureDevWorker,
  stopDevServer,
  temporalServerArgs,
} from '../../src/dev-server/index.js';
import type { DevServerInfo } from '../../src/dev-server/index.js';
import { HTTP_API_HOST } from '../../src/dev-server/ports.js';
import { findTemporalBinary } from '../../src/host/temporal-binary.js';
import { findFreePorts } from '../support/ports.js';

const run = promisify(execFile);
const devServerModule = fileURLToPath(new URL('../../src/dev-server/index.ts', import.meta.url));
const workerModule = createRequire(import.meta.url).resolve('@temporalio/worker');
const quiet = () => {};

/** Alive and not a zombie: an orphan that exited stays in the table until init reaps it. */
function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

/** One request to the HTTP API with the Host given (a browser sends the URL's; fetch cannot send another). */
async function httpApi(
  method: 'GET' | 'POST',
  host: string,
  apiPath = '/api/v1/namespaces/default/workflows/no-such-run',
): Promise<{ status: number; text: string }> {
  const { default: http } = await import('node:http');
  const record = JSON.parse(await fs.readFile(path.join(lifecycleStateDir, 'dev-server.json'), 'utf8')) as {
    server: { httpUrl: string };
  };
  return await new Promise((resolve, reject) => {
    const request = http.request(
      `${record.server.httpUrl}${apiPath}`,
      {
        method,
        agent: false,
        headers: { host, 'content-type': 'text/plain', origin: 'https://attacker.example' },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString() }));
      },
    );
    request.on('error', reject);
    request.end(method === 'POST' ? '{"signalName":"toolDecision","input":{"payloads":[]}}' : undefined);
  });
}

let lifecycleStateDir = '';

async function temporaryDirectory(prefix: string): Promise<string> {
  return await fs.mkdtemp(path.join(os.tmpdir(), prefix));
}

/** Runs ensureDevServer in a separate CLI-like process that exits right after, as `durable-agent` does. */
async function ensureFromAnotherProcess(options: {
  stateDir: string;
  port: number;
  uiPort: number;
  codecPort: number;
}): Promise<DevServerInfo> {
  const script = `import { ensureDevServer } from ${JSON.stringify(devServerModule)};
const info = await ensureDevServer({ ...${JSON.stringify(options)}, log: () => {} });
process.stdout.write(JSON.stringify(info));`;
  const { stdout } = await run(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    timeout: 90_000,
  });
  return JSON.parse(stdout) as DevServerInfo;
}

describe('embedded dev server lifecycle', () => {
  let stateDir: string;
  let port: number;
  let uiPort: number;
  let codecPort: number;
  let serverPid: number;
  let httpUrl: string;
  let workerPid: number;
  let codecPid: number;

  beforeAll(async () => {
    stateDir = await temporaryDirectory('dev-server-state-');
    lifecycleStateDir = stateDir;
    [port, uiPort, codecPort] = (await findFreePorts(3)) as [number, number, number];
  });

  afterAll(async () => {
    await stopDevServer({ stateDir, graceMs: 2_000 });
    await fs.rm(stateDir, { recursive: true, force: true });
  });

  it('starts one detached server for concurrent CLI invocations, and it outlives them', async () => {
    const [first, second] = await Promise.all([
      ensureFromAnotherProcess({ stateDir, port, uiPort, codecPort }),
      ensureFromAnotherProcess({ stateDir, port, uiPort, codecPort }),
    ]);

    expect(first.pid).toBe(second.pid);
    expect([first.reused, second.reused].sort()).toEqual([false, true]);
    expect(first.address).toBe(`127.0.0.1:${port}`);
    expect(first.uiUrl).toBe(`http://127.0.0.1:${uiPort}`);
    expect(first.codecUrl).toBe(`http://127.0.0.1:${codecPort}`);
    // The HTTP API `status` and `list` read: a port the server was given, recorded for both invocations.
    expect(first.httpUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(second.httpUrl).toBe(first.httpUrl);
    httpUrl = first.httpUrl;
    serverPid = first.pid;
    // Both CLI processes have exited; the server they started has not.
    expect(isAlive(serverPid)).toBe(true);
    await expect(fs.stat(path.join(stateDir, 'temporal.db'))).resolves.toBeTruthy();
    await expect(fs.readFile(path.join(stateDir, 'logs', 'temporal-server.log'), 'utf8')).resolves.toContain(
      'starting:',
    );
    await expect(fs.access(path.join(stateDir, 'dev-server.lock'))).rejects.toThrow();
  });

  it('reports it as running in the --status --json shape', async () => {
    const status = await devServerStatus({ stateDir });
    expect(status).toEqual({
      address: `127.0.0.1:${port}`,
      namespace: 'default',
      uiUrl: `http://127.0.0.1:${uiPort}`,
      httpUrl,
      server: { pid: serverPid, running: true },
      worker: { pid: null, running: false },
      codec: { url: `http://127.0.0.1:${codecPort}`, pid: null, running: false },
    });
  });

  it('tells the Web UI about the codec endpoint and turns on eager activity dispatch', async () => {
    const commandLine = readFileSync(`/proc/${serverPid}/cmdline`, 'utf8').split('\0');
    const flag = (name: string) => commandLine[commandLine.indexOf(name) + 1];
    expect(flag('--ui-codec-endpoint')).toBe(`http://127.0.0.1:${codecPort}`);
    expect(flag('--dynamic-config-value')).toBe('system.enableActivityEagerExecution=true');
    expect(commandLine).toContain(`frontend.httpAllowedHosts=["${HTTP_API_HOST}"]`);
    expect(`http://127.0.0.1:${flag('--http-port')}`).toBe(httpUrl);
    // The HTTP API answers there, to the one Host the CLI sends.
    expect(await httpApi('GET', HTTP_API_HOST)).toMatchObject({ status: 404 });
  });

  it('refuses every HTTP API request a web page can make: its own or a rebound Host, even a simple POST', async () => {
    const signal = '/api/v1/namespaces/default/workflows/no-such-run/signal/toolDecision';
    for (const host of [new URL(httpUrl).host, `localhost:${new URL(httpUrl).port}`, 'rebind.attacker.example']) {
      for (const answer of [await httpApi('GET', host), await httpApi('POST', host, signal)]) {
        expect(answer.status, host).toBe(403);
        expect(answer.text).toContain('Host not allowed');
      }
    }
    // With the CLI's Host the signal reaches Temporal (no such workflow): the refusal above is the Host's.
    expect(await httpApi('POST', HTTP_API_HOST, signal)).toMatchObject({ status: 404 });
    // The UI hands the endpoint to the browser through its settings.
    const settings = (await (await fetch(`http://127.0.0.1:${uiPort}/api/v1/settings`)).json()) as {
      Codec: { Endpoint: string };
    };
    expect(settings.Codec.Endpoint).toBe(`http://127.0.0.1:${codecPort}`);
  });

  it('registers the agent search attributes in the namespace', async () => {
    const connection = await Connection.connect({ address: `127.0.0.1:${port}` });
    try {
      const { customAttributes } = await connection.operatorService.listSearchAttributes({ namespace: 'default' });
      // temporal.api.enums.v1.IndexedValueType: 2 Keyword, 3 Int, 4 Double.
      expect(customAttributes).toMatchObject({
        AgentStatus: 2,
        AgentStep: 3,
        AgentPendingApprovals: 3,
        AgentCostUsd: 4,
        AgentModel: 2,
      });
    } finally {
      await connection.close();
    }
  });

  it('reuses the running server instead of starting another, re-registering a missing search attribute', async () => {
    const connection = await Connection.connect({ address: `127.0.0.1:${port}` });
    try {
      await connection.operatorService.removeSearchAttributes({
        namespace: 'default',
        searchAttributes: ['AgentCostUsd'],
      });
      const before = await connection.operatorService.listSearchAttributes({ namespace: 'default' });
      expect(before.customAttributes).not.toHaveProperty('AgentCostUsd');

      const again = await ensureDevServer({ stateDir, port, uiPort, log: quiet });

      expect(again).toMatchObject({ pid: serverPid, reused: true, address: `127.0.0.1:${port}` });
      const after = await connection.operatorService.listSearchAttributes({ namespace: 'default' });
      expect(after.customAttributes).toHaveProperty('AgentCostUsd', 4);
    } finally {
      await connection.close();
    }
  });

  it('starts a background worker once and waits until it polls', async () => {
    const workerScript = path.join(stateDir, 'worker.cjs');
    await fs.writeFile(
      workerScript,
      `const { NativeConnection, Worker } = require(${JSON.stringify(workerModule)});
(async () => {
  const connection = await NativeConnection.connect({ address: ${JSON.stringify(`127.0.0.1:${port}`)} });
  const worker = await Worker.create({ connection, taskQueue: 'dev-server-test', activities: { ping: async () => 'pong' } });
  await worker.run();
})().catch((error) => { console.error(error); process.exit(1); });
`,
    );
    const command = [process.execPath, workerScript];

    const started = await ensureDevWorker({ stateDir, command, taskQueue: 'dev-server-test', log: quiet });
    const reused = await ensureDevWorker({ stateDir, command, log: quiet });

    expect(started.reused).toBe(false);
    expect(reused).toEqual({ pid: started.pid, reused: true, logFile: path.join(stateDir, 'logs', 'worker.log') });
    workerPid = started.pid;
    const status = await devServerStatus({ stateDir });
    expect(status.worker).toEqual({ pid: workerPid, running: true });
  });

  it('starts the codec endpoint the UI was told about, answering the UI’s origin, and reuses it', async () => {
    const server = { codecUrl: `http://127.0.0.1:${codecPort}`, uiUrl: `http://127.0.0.1:${uiPort}` };
    const options = { stateDir, command: codecProcessCommand(server), url: server.codecUrl, log: quiet };
    const env = { ...process.env, DURABLE_AGENT_STORE: '', DURABLE_AGENT_STORE_DIR: '' };

    const started = await ensureDevCodec({ ...options, env });
    const reused = await ensureDevCodec({ ...options, env });

    expect(started.reused).toBe(false);
    expect(reused).toEqual({ ...started, reused: true });
    // The endpoint reads the store the embedded worker writes: <stateDir>/store by default.
    const health = await fetch(`${server.codecUrl}/health`, { headers: { Origin: server.uiUrl } });
    expect(await health.json()).toEqual({ status: 'ok', store: `directory ${path.join(stateDir, 'store')}` });
    expect(health.headers.get('access-control-allow-origin')).toBe(server.uiUrl);
    // Only the origin the UI is served at: `localhost` may be `::1`, which is not this UI's.
    const twin = await fetch(`${server.codecUrl}/health`, { headers: { Origin: `http://localhost:${uiPort}` } });
    expect(twin.status).toBe(403);
    codecPid = started.pid;
    expect((await devServerStatus({ stateDir })).codec).toEqual({ url: server.codecUrl, pid: codecPid, running: true });
    await expect(fs.readFile(path.join(stateDir, 'logs', 'codec-server.log'), 'utf8')).resolves.toContain(
      `codec endpoint: ${server.codecUrl}`,
    );
  });

  it('replaces the codec endpoint when the store it would read changes', async () => {
    const storeDir = path.join(stateDir, 'other-store');
    const server = { codecUrl: `http://127.0.0.1:${codecPort}`, uiUrl: `http://127.0.0.1:${uiPort}` };
    const env = { ...process.env, DURABLE_AGENT_STORE: '', DURABLE_AGENT_STORE_DIR: storeDir };

    const replaced = await ensureDevCodec({
      stateDir,
      env,
      command: codecProcessCommand(server),
      url: server.codecUrl,
      log: quiet,
    });

    expect(replaced.reused).toBe(false);
    expect(isAlive(codecPid)).toBe(false);
    expect(await (await fetch(`${server.codecUrl}/health`)).json()).toEqual({
      status: 'ok',
      store: `directory ${storeDir}`,
    });
    codecPid = replaced.pid;
  });

  it('stops the worker, the codec endpoint and the server', async () => {
    const result = await stopDevServer({ stateDir });

    expect(result).toEqual({
      server: { pid: serverPid, stopped: true },
      worker: { pid: workerPid, stopped: true },
      codec: { pid: codecPid, stopped: true },
    });
    expect(isAlive(serverPid)).toBe(false);
    expect(isAlive(workerPid)).toBe(false);
    expect(isAlive(codecPid)).toBe(false);
    const status = await devServerStatus({ stateDir });
    expect(status.server).toEqual({ pid: null, running: false });
    expect(status.worker).toEqual({ pid: null, running: false });
    expect(status.codec).toMatchObject({ pid: null, running: false });
    expect(await stopDevServer({ stateDir })).toEqual({
      server: { pid: null, stopped: false },
      worker: { pid: null, stopped: false },
      codec: { pid: null, stopped: false },
    });
  });
});

describe('embedded dev server failures', () => {
  const directories: string[] = [];
  const fresh = async () => {
    const directory = await temporaryDirectory('dev-server-fail-');
    directories.push(directory);
    return directory;
  };

  afterAll(async () => {
    for (const directory of directories) {
      await stopDevServer({ stateDir: directory, graceMs: 1_000 });
      await fs.rm(directory, { recursive: true, force: true });
    }
  });

  async function fakeTemporal(directory: string, serverBody: string): Promise<string> {
    const file = path.join(directory, 'fake-temporal');
    await fs.writeFile(
      file,
      `#!/bin/sh\nif [ "$1" = "--version" ]; then echo "temporal version 1.5.1 (Server 1.29.1, UI 2.42.1)"; exit 0; fi\n${serverBody}\n`,
      { mode: 0o755 },
    );
    return file;
  }

  it('refuses a port another process listens on, naming the variable to change', async () => {
    const stateDir = await fresh();
    const blocker = net.createServer();
    await new Promise<void>((resolve) => blocker.listen({ port: 0, host: '127.0.0.1' }, resolve));
    const busy = (blocker.address() as net.AddressInfo).port;
    const [uiPort] = (await findFreePorts(1)) as [number];
    try {
      const binary = (await findTemporalBinary({ build: false })).path;
      await expect(ensureDevServer({ stateDir, port: busy, uiPort, binary, log: quiet })).rejects.toThrow(
        new RegExp(`Port ${busy} \\(gRPC\\) on 127\\.0\\.0\\.1 is in use .*DURABLE_AGENT_DEV_PORT.*TEMPORAL_ADDRESS`),
      );
    } finally {
      blocker.close();
    }
  });

  it('reports a server that exits at once with the end of its log', async () => {
    const stateDir = await fresh();
    const binary = await fakeTemporal(stateDir, 'echo "Error: unknown flag: --bogus" >&2; exit 2');
    const [port, uiPort] = (await findFreePorts(2)) as [number, number];

    const error = await ensureDevServer({ stateDir, port, uiPort, binary, log: quiet }).catch(
      (caught: unknown) => caught,
    );

    expect(error).toBeInstanceOf(DevServerError);
    const message = (error as DevServerError).message;
    expect(message).toContain(`The Temporal server exited with code 2 before it answered on 127.0.0.1:${port}`);
    expect(message).toContain('Error: unknown flag: --bogus');
    expect((error as DevServerError).logFile).toBe(path.join(stateDir, 'logs', 'temporal-server.log'));
    expect((await devServerStatus({ stateDir })).server.running).toBe(false);
  });

  it('gives up after the start timeout, stops the process and points at the log', async () => {
    const stateDir = await fresh();
    const binary = await fakeTemporal(stateDir, 'echo "pretending to start"; while true; do sleep 1; done');
    const [port, uiPort] = (await findFreePorts(2)) as [number, number];

    const error = await ensureDevServer({ stateDir, port, uiPort, binary, startTimeoutMs: 2_000, log: quiet }).catch(
      (caught: unknown) => caught,
    );

    const message = (error as Error).message;
    expect(message).toContain(`did not answer on 127.0.0.1:${port} (namespace default) within 2s`);
    expect(message).toContain('pretending to start');
    expect(message).toContain(`See ${path.join(stateDir, 'logs', 'temporal-server.log')}`);
    const pgrep = spawnSync('pgrep', ['-f', binary], { encoding: 'utf8' });
    expect(pgrep.stdout.trim()).toBe('');
    expect(await devServerStatus({ stateDir })).toMatchObject({ server: { pid: null, running: false } });
  });

  it('does not count (or signal) a live pid that is not the process it started', async () => {
    const stateDir = await fresh();
    const record = {
      worker: { pid: process.pid, command: ['/opt/not-us/worker', 'run'], logFile: '/dev/null', startedAt: '' },
    };
    await fs.writeFile(path.join(stateDir, 'dev-server.json'), JSON.stringify(record));

    expect((await devServerStatus({ stateDir })).worker).toEqual({ pid: null, running: false });
    expect((await stopDevServer({ stateDir })).worker).toEqual({ pid: null, stopped: false });
    expect(isAlive(process.pid)).toBe(true);
  });

  it('recovers a lock left behind by a process that died', async () => {
    const stateDir = await fresh();
    const dead = spawnSync('true').pid;
    const lockFile = path.join(stateDir, 'dev-server.lock');
    await fs.writeFile(lockFile, JSON.stringify({ pid: dead, token: 'left-behind', createdAt: Date.now() }));

    const worker = await ensureDevWorker({
      stateDir,
      command: [process.execPath, '-e', 'setInterval(() => {}, 1000)'],
      log: quiet,
    });

    expect(worker.reused).toBe(false);
    expect(isAlive(worker.pid)).toBe(true);
    await expect(fs.access(lockFile)).rejects.toThrow();
    expect((await stopDevServer({ stateDir })).worker).toEqual({ pid: worker.pid, stopped: true });
  });

  it('replaces a running worker whose configuration changed, and reuses it otherwise', async () => {
    const stateDir = await fresh();
    const command = [process.execPath, '-e', 'setInterval(() => {}, 1000)'];
    const first = await ensureDevWorker({ stateDir, command, env: { PATH: '/usr/bin' }, log: quiet });
    // Variables the worker does not read change nothing.
    const again = await ensureDevWorker({ stateDir, command, env: { PATH: '/bin', PGPASSWORD: 'pw' }, log: quiet });
    expect(again).toMatchObject({ pid: first.pid, reused: true });

    const replaced = await ensureDevWorker({ stateDir, command, env: { OPENAI_API_KEY: 'sk-new' }, log: quiet });
    expect(replaced.reused).toBe(false);
    expect(replaced.pid).not.toBe(first.pid);
    expect(isAlive(first.pid)).toBe(false);
    expect(isAlive(replaced.pid)).toBe(true);
    expect((await stopDevServer({ stateDir })).worker).toEqual({ pid: replaced.pid, stopped: true });
  });

  it("starts the worker with its defined environment, not the caller's", async () => {
    const stateDir = await fresh();
    const command = [process.execPath, '-e', 'setInterval(() => {}, 1000)'];
    const caller = { PATH: '/usr/bin', HOME: '/home/dev', OPENAI_API_KEY: 'sk-worker', PGPASSWORD: 'pg-secret' };
    const worker = await ensureDevWorker({ stateDir, command, env: caller, log: quiet });
    // What the kernel holds for the process: what any command of the worker could read in /proc/$PPID/environ.
    const environ = readFileSync(`/proc/${worker.pid}/environ`, 'utf8').split('\0').filter(Boolean).sort();
    expect(environ).toEqual([
      `DURABLE_AGENT_STATE_DIR=${stateDir}`,
      'HOME=/home/dev',
      'OPENAI_API_KEY=sk-worker',
      'PATH=/usr/bin',
    ]);
    await stopDevServer({ stateDir });
  });

  it('reports a worker that dies at start-up', async () => {
    const stateDir = await fresh();
    const error = await ensureDevWorker({
      stateDir,
      command: [process.execPath, '-e', 'console.error("missing OPENAI_API_KEY"); process.exit(4)'],
      log: quiet,
    }).catch((caught: unknown) => caught);
    expect((error as Error).message).toMatch(/The background worker exited with code 4\.[\s\S]*missing OPENAI_API_KEY/);
    expect((await devServerStatus({ stateDir })).worker.running).toBe(false);
  });

  it('reports a codec endpoint that dies at start-up, and a codec port another process holds', async () => {
    const stateDir = await fresh();
    const [port] = (await findFreePorts(1)) as [number];
    const url = `http://127.0.0.1:${port}`;
    const dying = await ensureDevCodec({
      stateDir,
      url,
      command: [process.execPath, '-e', 'console.error("Invalid DURABLE_AGENT_STORE"); process.exit(2)'],
      log: quiet,
    }).catch((caught: unknown) => caught);
    expect((dying as Error).message).toMatch(
      /The codec endpoint exited with code 2\.[\s\S]*Invalid DURABLE_AGENT_STORE/,
    );
    expect((await devServerStatus({ stateDir })).codec.running).toBe(false);

    const blocker = net.createServer();
    await new Promise<void>((resolve) => blocker.listen({ port, host: '127.0.0.1' }, resolve));
    try {
      await expect(
        ensureDevCodec({ stateDir, url, command: [process.execPath, '-e', 'setInterval(() => {}, 1000)'], log: quiet }),
      ).rejects.toThrow(new RegExp(`Port ${port} \\(codec endpoint\\) .* in use .*DURABLE_AGENT_DEV_CODEC_PORT`));
    } finally {
      blocker.close();
    }
  });

  it('gives the server no codec endpoint without a UI, and eager activity dispatch always', () => {
    const headless = temporalServerArgs({ port: 7233, uiPort: null, dbFile: 'db', codecUrl: 'http://127.0.0.1:8234' });
    expect(headless).not.toContain('--ui-codec-endpoint');
    expect(headless.join(' ')).toContain('--dynamic-config-value system.enableActivityEagerExecution=true');
    expect(headless.join(' ')).toContain(`--dynamic-config-value frontend.httpAllowedHosts=["${HTTP_API_HOST}"]`);
    expect(temporalServerArgs({ port: 7233, uiPort: 8233, dbFile: 'db' })).not.toContain('--ui-codec-endpoint');
  });

  it('takes ports from the environment and rejects ones that are not numbers', async () => {
    const stateDir = await fresh();
    const status = await devServerStatus({
      stateDir,
      env: { DURABLE_AGENT_DEV_PORT: '7301', DURABLE_AGENT_DEV_UI_PORT: '8302', DURABLE_AGENT_DEV_CODEC_PORT: '8303' },
    });
    expect(status).toMatchObject({ address: '127.0.0.1:7301', uiUrl: 'http://127.0.0.1:8302', namespace: 'default' });
    expect(status.codec).toEqual({ url: 'http://127.0.0.1:8303', pid: null, running: false });
    expect((await devServerStatus({ stateDir, env: {} })).codec.url).toBe('http://127.0.0.1:8234');
    await expect(devServerStatus({ stateDir, env: { DURABLE_AGENT_DEV_CODEC_PORT: '0x' } })).rejects.toThrow(
      'DURABLE_AGENT_DEV_CODEC_PORT=0x is not a port number',
    );
    await expect(devServerStatus({ stateDir, env: { DURABLE_AGENT_DEV_PORT: 'seventy' } })).rejects.toThrow(
      'DURABLE_AGENT_DEV_PORT=seventy is not a port number',
    );
  });
});
