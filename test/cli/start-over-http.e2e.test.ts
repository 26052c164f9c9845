// `run`'s start through the embedded server's HTTP API: taken only when the recorded server and a background worker
// of this installation and configuration are running, in the namespace the server serves, for an input that stays in
// history; and the workflow it starts reads back through the SDK's client (with the agent data converter) exactly as
// one the client started would: input, memo, summary and details.
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { ensureDevServer, ensureDevWorker, stopDevServer } from '../../src/dev-server/index.js';
import type { DevServerInfo } from '../../src/dev-server/index.js';
import { workerProcessCommand } from '../../src/cli/worker-command.js';
import { readyEmbeddedServer, startOverHttp } from '../../src/cli/start-over-http.js';
import { agentDataConverter } from '../../src/store/data-converter.js';
import { createDirectoryStore } from '../../src/store/directory-store.js';
import { findFreePorts } from '../support/ports.js';

let stateDir: string;
let server: DevServerInfo;
let env: NodeJS.ProcessEnv;
let connection: Connection;

beforeAll(async () => {
  stateDir = await mkdtemp(path.join(os.tmpdir(), 'durable-agent-start-over-http-'));
  const [port, httpPort] = (await findFreePorts(2)) as [number, number];
  server = await ensureDevServer({ stateDir, port, httpPort, headless: true, build: false, log: () => {} });
  // The variables the CLI would run with; no API key, so the worker's configuration is that of this environment.
  env = { PATH: process.env.PATH, HOME: process.env.HOME, DURABLE_AGENT_STATE_DIR: stateDir };
  connection = await Connection.connect({ address: server.address });
}, 120_000);

afterAll(async () => {
  await connection?.close();
  await stopDevServer({ stateDir, graceMs: 2_000 });
  await rm(stateDir, { recursive: true, force: true });
});

describe('readyEmbeddedServer', () => {
  it('answers only once a worker of this installation and configuration runs', { timeout: 120_000 }, async () => {
    const config = loadConfig(env);
    // The server alone: a run started now would wait for connect() to start the worker, so connect() goes first.
    expect(await readyEmbeddedServer(config, env)).toBeUndefined();
    await ensureDevWorker({ stateDir, command: workerProcessCommand(), env, log: () => {} });
    const api = await readyEmbeddedServer(config, env);
    expect(api?.address).toBe(server.address);
    expect(api?.serverNamespace).toBe('default');
    // A setting the running worker was not started with: connect() replaces that worker first.
    expect(await readyEmbeddedServer(config, { ...env, OPENAI_BASE_URL: 'http://127.0.0.1:9/v1' })).toBeUndefined();
    // Another namespace than the one the server registered the search attributes in.
    const elsewhere = { ...env, TEMPORAL_NAMESPACE: 'elsewhere' };
    expect(await readyEmbeddedServer(loadConfig(elsewhere), elsewhere)).toBeUndefined();
    // A cluster is never reached through the embedded server's API.
    const cluster = { ...env, TEMPORAL_ADDRESS: server.address };
    expect(await readyEmbeddedServer(loadConfig(cluster), cluster)).toBeUndefined();
  });
});

describe('startOverHttp', () => {
  const client = () =>
    new Client({
      connection,
      dataConverter: agentDataConverter({ store: createDirectoryStore(path.join(stateDir, 'content')) }),
    });
  const start = (workflowId: string, input: unknown) => ({
    workflowId,
    workflowType: 'probeWorkflow',
    // No worker polls this queue: the workflow stays as started.
    taskQueue: 'start-over-http-test',
    input,
    memo: { task: 'Read the README', cwd: '/tmp/work' },
    summary: 'Read the README',
    details: 'model: m · workspace: /tmp/work · mode: default',
  });

  it('starts a workflow the SDK reads back as it sent it', { timeout: 60_000 }, async () => {
    const api = await readyApi();
    const input = { task: 'Read the README', nested: { emoji: '✓ ü', list: [1, 2.5, null], empty: '' } };
    const runId = await startOverHttp(api, start('http-start-1', input));
    expect(runId).toMatch(/^[0-9a-f-]{36}$/);
    const handle = client().workflow.getHandle('http-start-1', runId);
    const description = await handle.describe();
    expect(description.type).toBe('probeWorkflow');
    expect(description.taskQueue).toBe('start-over-http-test');
    expect(description.memo).toEqual({ task: 'Read the README', cwd: '/tmp/work' });
    expect(await description.staticSummary()).toBe('Read the README');
    expect(await description.staticDetails()).toBe('model: m · workspace: /tmp/work · mode: default');
    const history = await handle.fetchHistory();
    const payloads = history.events?.[0]?.workflowExecutionStartedEventAttributes?.input?.payloads ?? [];
    expect(await client().options.loadedDataConverter.payloadConverter.fromPayload(payloads[0]!)).toEqual(input);
    await handle.terminate('test over');
  });

  it('leaves an input over the External Storage threshold to the client, starting nothing', async () => {
    const api = await readyApi();
    const previous = process.env.DURABLE_AGENT_PAYLOAD_THRESHOLD_BYTES;
    process.env.DURABLE_AGENT_PAYLOAD_THRESHOLD_BYTES = '1024';
    try {
      expect(await startOverHttp(api, start('http-start-2', { task: 'x'.repeat(2048) }))).toBeUndefined();
    } finally {
      if (previous === undefined) delete process.env.DURABLE_AGENT_PAYLOAD_THRESHOLD_BYTES;
      else process.env.DURABLE_AGENT_PAYLOAD_THRESHOLD_BYTES = previous;
    }
    await expect(client().workflow.getHandle('http-start-2').describe()).rejects.toThrow(/not found/i);
  });
});

async function readyApi() {
  const { embeddedHttpApi } = await import('../../src/dev-server/http-api.js');
  const api = await embeddedHttpApi(env);
  if (!api) throw new Error('the embedded server has no HTTP API');
  return api;
}
