// What a command loads: `--help` nothing beyond the command table, `status` and `list` the Temporal client and the
// compiled CLI (never the sources through tsx) but not the worker, the webpack bundler, a model client or the S3 SDK.
// Against the embedded server, whose HTTP API they read, `status` and `list` load neither the Temporal client nor zod,
// and `run` follows a short run to its end without the client.
// Checked in the spawned CLI with a module resolve hook that records every module it loads.
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureDevServer, ensureDevWorker, stopDevServer } from '../../src/dev-server/index.js';
import { workerProcessCommand } from '../../src/cli/worker-command.js';
import { startScriptedModelServer } from '../../src/scripted-model/server.js';
import { durableAgentBin } from '../support/cli.js';
import { temporalAddress } from '../support/harness.js';
import { findFreePorts } from '../support/ports.js';
import { loadedModules, writeModuleRecorder } from '../support/loaded-modules.js';

// Packages only a worker, a model call, a bundle or the S3 store needs.
const HEAVY = [
  '@temporalio/worker',
  '@temporalio/core-bridge',
  'webpack',
  'openai',
  'execa',
  '@aws-sdk/client-s3',
  'tsx',
];

let directory: string;
let register: string;

beforeAll(async () => {
  directory = await mkdtemp(path.join(os.tmpdir(), 'durable-agent-startup-'));
  register = await writeModuleRecorder(directory);
});

afterAll(async () => {
  await rm(directory, { recursive: true, force: true });
});

/** Runs the CLI with the recorder; returns its result and the packages and own modules it loaded. */
async function loadedBy(args: string[], env: Record<string, string> = { TEMPORAL_ADDRESS: temporalAddress() }) {
  const result = await execa(process.execPath, ['--import', register, durableAgentBin, ...args], {
    env,
    extendEnv: false,
    reject: false,
    stdin: 'ignore',
  });
  return { result, ...loadedModules(result.stderr) };
}

describe('module loading', () => {
  it('--help loads the command table and no package', async () => {
    const { result, packages, own } = await loadedBy(['--help']);
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toContain('status ID');
    expect([...packages]).toEqual([]);
    expect(own.sort()).toEqual([
      'dist/cli/command-table.js',
      'dist/cli/exit-codes.js',
      'dist/cli/main.js',
      'dist/cli/output.js',
      // Everything the CLI prints goes through the control-character escaping.
      'dist/core/terminal-text.js',
    ]);
  });

  for (const args of [['status', 'no-such-run'], ['list']]) {
    it(`${args[0]} loads the Temporal client from the compiled CLI, and nothing a worker needs`, async () => {
      const { result, packages, own } = await loadedBy(args);
      expect(result.stderr).not.toMatch(/changed after the last build|holds no build/);
      expect(own.length).toBeGreaterThan(0);
      expect(own.filter((file) => !file.startsWith('dist/'))).toEqual([]);
      expect(packages).toContain('@temporalio/client');
      expect(HEAVY.filter((name) => packages.has(name))).toEqual([]);
      if (args[0] === 'status') {
        expect(result.exitCode).toBe(2);
        expect(result.stderr).toContain('error: no run no-such-run');
      } else {
        expect(result.exitCode, result.stderr).toBe(0);
      }
    });
  }
});

describe('module loading against the embedded server', () => {
  let stateDir: string;

  beforeAll(async () => {
    stateDir = await mkdtemp(path.join(os.tmpdir(), 'durable-agent-startup-state-'));
    const [port, httpPort] = (await findFreePorts(2)) as [number, number];
    const server = await ensureDevServer({ stateDir, port, httpPort, headless: true, build: false, log: () => {} });
    expect(server.httpUrl).toBe(`http://127.0.0.1:${httpPort}`);
  });

  afterAll(async () => {
    await stopDevServer({ stateDir, graceMs: 2_000 });
    await rm(stateDir, { recursive: true, force: true });
  });

  for (const args of [['status', 'no-such-run'], ['list']]) {
    it(`${args[0]} reads the HTTP API: no Temporal client, no zod, no worker started`, async () => {
      const { result, packages, own } = await loadedBy(args, { DURABLE_AGENT_STATE_DIR: stateDir });
      expect([...packages].filter((name) => name.startsWith('@temporalio/') || name === 'zod')).toEqual([]);
      expect(HEAVY.filter((name) => packages.has(name))).toEqual([]);
      expect(own).toContain('dist/dev-server/http-api.js');
      expect(own).not.toContain('dist/config.js');
      expect(own).not.toContain('dist/cli/connect.js');
      if (args[0] === 'status') {
        expect(result.exitCode).toBe(2);
        expect(result.stderr).toContain('error: no run no-such-run');
      } else {
        expect(result.exitCode, result.stderr).toBe(0);
        expect(result.stdout).toBe('no agent runs match');
      }
      // Nothing started a background worker (a query, the only reason for one, is sent only to a running run).
      expect(result.stderr).not.toMatch(/Starting a background worker/);
    });
  }

  it(
    'run starts its workflow before it loads the Temporal client or a tool contract',
    { timeout: 120_000 },
    async () => {
      const env = { DURABLE_AGENT_STATE_DIR: stateDir, PATH: process.env.PATH ?? '' };
      await ensureDevWorker({ stateDir, command: workerProcessCommand(), env, log: () => {} });
      const { result, urls } = await loadedBy(
        ['run', '--detach', '--provider', 'scripted', '--model', 'm', '--base-url', 'http://127.0.0.1:9/v1', 'a task'],
        env,
      );
      expect(result.exitCode, result.stderr).toBe(4);
      expect(result.stderr).toMatch(/run agent-a-task-[0-9a-f]{8}/);
      // Modules are listed in the order they were resolved: the HTTP API's module is imported just before the start,
      // the connection's module (and the client with it) only once the start has answered.
      const position = (test: (url: string) => boolean) => urls.findIndex(test);
      const httpApi = position((url) => url.endsWith('/dist/dev-server/http-api.js'));
      expect(httpApi).toBeGreaterThan(0);
      expect(position((url) => url.endsWith('/dist/cli/connect.js'))).toBeGreaterThan(httpApi);
      const beforeStart = urls.slice(0, httpApi);
      expect(beforeStart.filter((url) => /node_modules\/@temporalio\/|\/dist\/tools\//.test(url))).toEqual([]);
    },
  );

  it(
    'run follows a run that ends within a second to its end without loading the Temporal client',
    { timeout: 120_000 },
    async () => {
      const env = { DURABLE_AGENT_STATE_DIR: stateDir, PATH: process.env.PATH ?? '' };
      await ensureDevWorker({ stateDir, command: workerProcessCommand(), env, log: () => {} });
      const model = await startScriptedModelServer({ script: [{ content: 'answered at once' }] });
      try {
        const args = ['run', '--json', '--provider', 'scripted', '--model', 'm', '--base-url', model.url, 'a task'];
        const { result, packages, own } = await loadedBy(args, env);
        expect(result.exitCode, result.stderr).toBe(0);
        expect(JSON.parse(result.stdout)).toMatchObject({ status: 'completed', answer: 'answered at once' });
        expect([...packages].filter((name) => name.startsWith('@temporalio/'))).toEqual([]);
        expect(own).toContain('dist/cli/http-run-reader.js');
        expect(own).not.toContain('dist/cli/connect.js');
      } finally {
        await model.close();
      }
    },
  );
});
