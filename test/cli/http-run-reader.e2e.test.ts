// Following a run over the embedded server's HTTP API (src/cli/http-run-reader.ts), against a real dev server and a
// worker of a workflow that ends each way a run can end: the outcome is what the SDK's handle reader gives for the same
// run, a continue-as-new is followed, and what the API cannot read (a result in the content store, a query answer of
// an unknown shape) is read through the handle instead, only then.
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, Connection } from '@temporalio/client';
import type { WorkflowHandleWithFirstExecutionRunId } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime, Worker, bundleWorkflowCode } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handleReader } from '../../src/cli/handle-reader.js';
import { httpRunReader } from '../../src/cli/http-run-reader.js';
import type { RunReader } from '../../src/cli/run-reader.js';
import { embeddedHttpApi } from '../../src/dev-server/http-api.js';
import type { HttpApi } from '../../src/dev-server/http-api.js';
import { ensureDevServer, stopDevServer } from '../../src/dev-server/index.js';
import { emptyUsage } from '../../src/core/state.js';
import type { AgentResult } from '../../src/protocol/run-report.js';
import { agentDataConverter } from '../../src/store/data-converter.js';
import { createMemoryStore } from '../support/memory-store.js';
import { findFreePorts } from '../support/ports.js';
import type { Ending } from './fixtures/ending-workflow.js';
import { endingWorkflow, finishSignal } from './fixtures/ending-workflow.js';

const workflowsPath = fileURLToPath(new URL('./fixtures/ending-workflow.ts', import.meta.url));
const quiet = { log() {}, trace() {}, debug() {}, info() {}, warn() {}, error() {} };
const taskQueue = `http-run-reader-${randomUUID()}`;
// Small enough that a large result goes to the content store, where only the data converter reads it.
const threshold = 4096;

let stateDir: string;
let api: HttpApi;
let connection: Connection;
let workerConnection: NativeConnection;
let worker: Worker;
let running: Promise<void>;
let client: Client;

beforeAll(async () => {
  stateDir = await mkdtemp(path.join(os.tmpdir(), 'durable-agent-http-run-reader-'));
  const [port, httpPort] = (await findFreePorts(2)) as [number, number];
  const server = await ensureDevServer({ stateDir, port, httpPort, headless: true, build: false, log: () => {} });
  const found = await embeddedHttpApi({ DURABLE_AGENT_STATE_DIR: stateDir });
  if (!found) throw new Error('the embedded server has no HTTP API');
  api = found;
  Runtime.install({ logger: new DefaultLogger('ERROR') });
  const dataConverter = agentDataConverter({ store: createMemoryStore(), payloadSizeThreshold: threshold });
  const { code } = await bundleWorkflowCode({ workflowsPath, logger: quiet });
  workerConnection = await NativeConnection.connect({ address: server.address });
  worker = await Worker.create({ connection: workerConnection, taskQueue, workflowBundle: { code }, dataConverter });
  running = worker.run();
  connection = await Connection.connect({ address: server.address });
  client = new Client({ connection, dataConverter });
}, 120_000);

afterAll(async () => {
  worker?.shutdown();
  await running;
  await workerConnection?.close();
  await connection?.close();
  await stopDevServer({ stateDir, graceMs: 2_000 });
  await rm(stateDir, { recursive: true, force: true });
});

const result = (answer: string): AgentResult => ({
  status: 'completed',
  answer,
  steps: 2,
  toolCalls: 1,
  usage: emptyUsage(),
});

async function start(ending: Ending): Promise<WorkflowHandleWithFirstExecutionRunId<typeof endingWorkflow>> {
  return await client.workflow.start(endingWorkflow, {
    args: [ending],
    taskQueue,
    workflowId: `ending-${randomUUID()}`,
  });
}

/** The HTTP reader of `handle`'s run, counting how often it fell back on the handle reader. */
function readers(handle: WorkflowHandleWithFirstExecutionRunId<typeof endingWorkflow>) {
  const fallbacks = { count: 0 };
  const overHandle = handleReader(handle as unknown as Parameters<typeof handleReader>[0]);
  const overHttp: RunReader = httpRunReader(api, handle.workflowId, handle.firstExecutionRunId, async () => {
    fallbacks.count++;
    return overHandle;
  });
  return { overHttp, overHandle, fallbacks };
}

describe('httpRunReader', () => {
  it('reads a completed run as the handle reader does, without the handle', { timeout: 30_000 }, async () => {
    const handle = await start({ end: 'complete', result: result('done') });
    const { overHttp, overHandle, fallbacks } = readers(handle);
    const ended = await overHttp.ended();
    expect(ended).toEqual({ result: result('done'), exitCode: 0 });
    expect(ended).toEqual(await overHandle.ended());
    expect(fallbacks.count).toBe(0);
  });

  it('waits for a run that is still going, and reads its live state', { timeout: 30_000 }, async () => {
    const handle = await start({ end: 'wait', result: result('finished later') });
    const { overHttp, fallbacks } = readers(handle);
    const ended = overHttp.ended();
    expect(await overHttp.state(4)).toEqual({
      progress: [{ seq: 5, step: 1, kind: 'step', text: 'after 4' }],
      pendingApprovals: [],
    });
    await handle.signal(finishSignal);
    expect((await ended).result.answer).toBe('finished later');
    expect(fallbacks.count).toBe(0);
  });

  it("polls again when the server's long poll runs out before the run ends", { timeout: 60_000 }, async () => {
    const handle = await start({ end: 'wait', result: result('after the long poll') });
    const { overHttp, fallbacks } = readers(handle);
    const ended = overHttp.ended();
    // The server answers a long poll of an open run after 20 s with no event and a token to poll on with.
    await new Promise((resolve) => setTimeout(resolve, 25_000));
    await handle.signal(finishSignal);
    expect((await ended).result.answer).toBe('after the long poll');
    expect(fallbacks.count).toBe(0);
  });

  it('follows a run that continued as new to the run that ended', { timeout: 30_000 }, async () => {
    const handle = await start({ end: 'continue', result: result('second run') });
    const { overHttp, fallbacks } = readers(handle);
    expect((await overHttp.ended()).result.answer).toBe('second run');
    expect(fallbacks.count).toBe(0);
  });

  it('reads failed, terminated and cancelled runs as the handle reader does', { timeout: 30_000 }, async () => {
    const failed = await start({ end: 'fail', result: { ...result('partial'), status: 'failed', error: 'budget' } });
    const terminated = await start({ end: 'wait' });
    await terminated.terminate('stopped by the operator');
    const cancelled = await start({ end: 'wait' });
    await cancelled.cancel();
    for (const [handle, expected] of [
      [failed, { status: 'failed', answer: 'partial', error: 'budget' }],
      [terminated, { status: 'terminated', answer: null, error: 'terminated: stopped by the operator' }],
      [cancelled, { status: 'cancelled', answer: null, error: 'cancelled' }],
    ] as const) {
      const { overHttp, overHandle, fallbacks } = readers(handle);
      const ended = await overHttp.ended();
      expect(ended.result).toMatchObject(expected);
      expect(ended.exitCode).not.toBe(0);
      expect(ended).toEqual(await overHandle.ended());
      expect(fallbacks.count).toBe(0);
    }
  });

  it('reads what only the data converter can through the handle', { timeout: 30_000 }, async () => {
    const large = result('x'.repeat(2 * threshold));
    const handle = await start({ end: 'complete', result: large });
    const { overHttp, fallbacks } = readers(handle);
    expect(await overHttp.ended()).toEqual({ result: large, exitCode: 0 });
    expect(fallbacks.count).toBe(1);
  });

  it('falls back when a query answer is of an unknown shape', { timeout: 30_000 }, async () => {
    const handle = await start({ end: 'wait', view: { progress: 'not a list' } });
    const { overHttp, fallbacks } = readers(handle);
    await expect(overHttp.state(0)).resolves.toEqual({ progress: 'not a list' });
    expect(fallbacks.count).toBe(1);
    await handle.terminate('test over');
  });

  it('abandons a long poll when closed, so nothing keeps the process waiting', { timeout: 30_000 }, async () => {
    const handle = await start({ end: 'wait' });
    const { overHttp } = readers(handle);
    const ended = overHttp.ended();
    const started = Date.now();
    overHttp.close();
    await expect(ended).rejects.toThrow();
    expect(Date.now() - started).toBeLessThan(1_000);
    await handle.terminate('test over');
  });
});
