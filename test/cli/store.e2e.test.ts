// `output` and `gc` end to end: the real CLI against a directory store (and an S3 bucket on s3proxy), and gc against
// the shared test server, in a namespace of its own so open runs of other test files never enter its roots.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { msToTs } from '@temporalio/common/lib/time.js';
import { DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestContext } from 'vitest';
import { contentKey, refString } from '../../src/protocol/content-key.js';
import type { ContentKey } from '../../src/protocol/content-key.js';
import type { AgentInput } from '../../src/core/state.js';
import type { ContentStore } from '../../src/store/content-store.js';
import { createDirectoryStore } from '../../src/store/directory-store.js';
import { agentWorkflow } from '../../src/workflows/agent.js';
import { storeRootsQuery } from '../../src/protocol/run-messages.js';
import { createAgentWorkers } from '../../src/worker.js';
import { durableAgentBin } from '../support/cli.js';
import type { Harness } from '../support/harness.js';
import {
  sharedBundle,
  startScriptedRun,
  temporalAddress,
  testCommandSandbox,
  workspaceFrom,
} from '../support/harness.js';
import type { TestS3Server } from '../support/s3-server.js';
import { S3ServerUnavailableError, startS3Server } from '../support/s3-server.js';
import { pendingApproval, waitFor } from '../support/wait.js';

const DAY_MS = 86_400_000;
const namespace = `store-test-${randomBytes(4).toString('hex')}`;
const taskQueue = `store-test-${randomBytes(4).toString('hex')}`;

let storeRoot: string;
let store: ContentStore;
let harness: Harness;
let worker: { shutdown(): void; running: Promise<void>; connection: NativeConnection } | undefined;

/** The CLI with this file's namespace, task queue and store; stdout as bytes, so binary output can be compared. */
function cli(args: string[], env: Record<string, string> = {}) {
  return execa(process.execPath, [durableAgentBin, ...args], {
    env: {
      TEMPORAL_ADDRESS: temporalAddress(),
      TEMPORAL_NAMESPACE: namespace,
      DURABLE_AGENT_TASK_QUEUE: taskQueue,
      DURABLE_AGENT_STORE_DIR: storeRoot,
      ...env,
    },
    extendEnv: false,
    reject: false,
    stdin: 'ignore',
    encoding: 'buffer',
  });
}

async function age(key: ContentKey, days: number): Promise<void> {
  const hex = key.slice('sha256:'.length);
  const when = new Date(Date.now() - days * DAY_MS);
  await fs.utimes(path.join(storeRoot, 'objects', hex.slice(0, 2), hex.slice(2)), when, when);
}

beforeAll(async () => {
  storeRoot = await fs.mkdtemp(path.join(os.tmpdir(), 'durable-agent-store-cli-'));
  store = createDirectoryStore(storeRoot);
});
afterAll(async () => {
  await fs.rm(storeRoot, { recursive: true, force: true });
});

describe('output', () => {
  it('prints stored text exactly, by sha256:<hex> or bare hex', async () => {
    const text = 'line one\nÜnïcödé 🧪\nno trailing newline';
    const key = await store.put(text);
    for (const argument of [key, key.slice('sha256:'.length)]) {
      const shown = await cli(['output', argument]);
      expect(shown.exitCode, Buffer.from(shown.stderr).toString()).toBe(0);
      expect(Buffer.from(shown.stdout).toString('utf8')).toBe(text);
    }
  });

  it('prints binary content byte for byte', async () => {
    const bytes = randomBytes(200_000);
    const key = await store.put(bytes);
    const shown = await cli(['output', key]);
    expect(shown.exitCode).toBe(0);
    expect(Buffer.compare(Buffer.from(shown.stdout), bytes)).toBe(0);
  });

  it('--json prints one object with the content as text, or base64 for bytes', async () => {
    const key = await store.put('{"role":"tool"}');
    const shown = await cli(['output', key, '--json']);
    expect(shown.exitCode).toBe(0);
    expect(JSON.parse(Buffer.from(shown.stdout).toString())).toEqual({
      key,
      store: `directory ${storeRoot}`,
      bytes: 15,
      encoding: 'utf8',
      content: '{"role":"tool"}',
    });
    const binary = await store.put(Buffer.from([0xff, 0x00, 0x01]));
    const shownBinary = JSON.parse(Buffer.from((await cli(['output', binary, '--json'])).stdout).toString());
    expect(shownBinary).toMatchObject({ encoding: 'base64', content: '/wAB', bytes: 3 });
  });

  it('a missing key exits 1 with one line naming the key and the store', async () => {
    const key = contentKey(`never stored ${randomBytes(4).toString('hex')}`);
    const shown = await cli(['output', key]);
    expect(shown.exitCode).toBe(1);
    expect(shown.stdout.byteLength).toBe(0);
    const stderr = Buffer.from(shown.stderr).toString().trim();
    expect(stderr.split('\n')).toHaveLength(1);
    expect(stderr).toContain(key);
    expect(stderr).toContain(`directory ${storeRoot}`);
  });

  it('a malformed key or a bad store setting is a usage error (exit 2)', async () => {
    for (const args of [['output', 'sha256:nothex'], ['output'], ['output', 'a', 'b']]) {
      const shown = await cli(args);
      expect(shown.exitCode, args.join(' ')).toBe(2);
    }
    const badStore = await cli(['output', contentKey('x')], { DURABLE_AGENT_STORE: 'ftp://somewhere' });
    expect(badStore.exitCode).toBe(2);
    expect(Buffer.from(badStore.stderr).toString()).toContain('DURABLE_AGENT_STORE');
  });
});

describe('output from an S3 store', () => {
  let s3: TestS3Server | undefined;
  let problem: unknown;
  beforeAll(async () => {
    try {
      s3 = await startS3Server();
    } catch (error) {
      problem = error;
    }
  }, 120_000);
  afterAll(async () => {
    await s3?.stop();
  });

  function server(context: TestContext): TestS3Server {
    if (s3) return s3;
    if (problem instanceof S3ServerUnavailableError && process.env.CI !== 'true')
      context.skip(`S3 server unavailable: ${problem.message}`);
    throw problem;
  }

  it('reads what a store on the same bucket and prefix wrote; a missing key names the bucket', async (context) => {
    const s3Env = server(context).storeEnv('runs/');
    const { storeFromEnv } = await import('../../src/store/store-from-env.js');
    const key = await storeFromEnv(s3Env, { stateDir: storeRoot }).put('from the bucket');
    const shown = await cli(['output', key], s3Env);
    expect(shown.exitCode, Buffer.from(shown.stderr).toString()).toBe(0);
    expect(Buffer.from(shown.stdout).toString()).toBe('from the bucket');
    const missing = await cli(['output', contentKey('not in the bucket')], s3Env);
    expect(missing.exitCode).toBe(1);
    expect(Buffer.from(missing.stderr).toString()).toContain(
      `s3://${s3Env.DURABLE_AGENT_STORE!.slice('s3://'.length)}`,
    );
  });
});

describe('gc', () => {
  let client: Client;
  let connection: Connection;
  const toTerminate: string[] = [];
  let closeModel: (() => Promise<void>) | undefined;

  // Content of the open run: its task mentions `root`, whose text refers to `child`. The run's roots reach `root`
  // through whatever the run stored its task in (its transcript), so keeping both takes marking through all of it.
  let root: ContentKey;
  let child: ContentKey;
  // A finished run that wrote a file: its checkpoints are no open run's, so old enough, they go.
  let closedRun: string;

  beforeAll(async () => {
    connection = await Connection.connect({ address: temporalAddress() });
    await connection.workflowService.registerNamespace({
      namespace,
      workflowExecutionRetentionPeriod: msToTs('1 day'),
    });
    client = new Client({ connection, namespace });
    await waitFor(
      async () => (await connection.workflowService.describeNamespace({ namespace })).namespaceInfo ?? undefined,
      'the namespace',
    );

    Runtime.install({ logger: new DefaultLogger('ERROR') });
    const workerConnection = await NativeConnection.connect({ address: temporalAddress() });
    const agent = await createAgentWorkers({
      connection: workerConnection,
      address: temporalAddress(),
      namespace,
      taskQueue,
      env: { OPENAI_API_KEY: 'test-key' },
      workflowBundle: await sharedBundle(),
      commandSandbox: await testCommandSandbox(),
      store,
    });
    worker = { shutdown: () => agent.shutdown(), running: agent.run(), connection: workerConnection };
    harness = { client, taskQueue, store, storeEnv: {}, close: async () => undefined };

    child = await store.put(`a tool result ${randomBytes(4).toString('hex')}`);
    root = await store.put(JSON.stringify({ role: 'tool', content: refString(child) }));
    const workspace = await workspaceFrom();
    await fs.writeFile(path.join(workspace, 'notes.txt'), 'keep me\n');
    const input: Partial<AgentInput> = { askPolicy: 'wait', searchAttributes: false };
    const { handle, model } = await startScriptedRun(harness, {
      workspace,
      task: `Summarise the stored result ${root}, then tidy up.`,
      input,
      script: [
        // A checkpointed change first: the open run's checkpoints are among what it keeps.
        { tool_calls: [{ id: 'add', name: 'WriteFile', arguments: { path: 'added.txt', content: 'kept\n' } }] },
        { tool_calls: [{ id: 'rm', name: 'Bash', arguments: { command: 'rm notes.txt' } }] },
        { content: 'done' },
      ],
    });
    closeModel = () => model.close();
    toTerminate.push(handle.workflowId);
    const closed = await startScriptedRun(harness, {
      workspace: await workspaceFrom(),
      input: { searchAttributes: false },
      script: [
        {
          tool_calls: [
            {
              id: 'w',
              name: 'WriteFile',
              arguments: { path: 'gone.txt', content: `${randomBytes(8).toString('hex')}\n` },
            },
          ],
        },
        { content: 'done' },
      ],
    });
    expect((await closed.handle.result()).status).toBe('completed');
    await closed.model.close();
    closedRun = closed.handle.workflowId;
    await pendingApproval(client, handle.workflowId, 'rm');
    // Wait until the run is listed as open: gc finds runs through visibility.
    await waitFor(async () => {
      for await (const execution of client.workflow.list({
        query: `WorkflowId = '${handle.workflowId}' AND ExecutionStatus = 'Running'`,
      }))
        return execution;
      return undefined;
    }, 'the run in visibility');
  }, 120_000);

  afterAll(async () => {
    for (const workflowId of toTerminate)
      await client?.workflow
        .getHandle(workflowId)
        .terminate('test over')
        .catch(() => undefined);
    worker?.shutdown();
    await worker?.running;
    await worker?.connection.close();
    await closeModel?.();
    await connection?.close();
  });

  /** Every stored object the run's content needs, as of now, marked old; plus an old and a young orphan. */
  async function ageEverythingAndAddOrphans(): Promise<{
    oldOrphan: ContentKey;
    youngOrphan: ContentKey;
    runKeys: ContentKey[];
  }> {
    const runKeys: ContentKey[] = [];
    for await (const object of store.list()) {
      runKeys.push(object.key);
      await age(object.key, 40);
    }
    const oldOrphan = await store.put(`old orphan ${randomBytes(4).toString('hex')}`);
    await age(oldOrphan, 40);
    const youngOrphan = await store.put(`young orphan ${randomBytes(4).toString('hex')}`);
    return { oldOrphan, youngOrphan, runKeys };
  }

  it('the open run names stored content through the storeRoots query', async () => {
    const roots = await client.workflow.getHandle(toTerminate[0]!).query(storeRootsQuery);
    expect(roots.length).toBeGreaterThan(0);
    for (const key of roots) expect(await store.has(key as ContentKey), key).toBe(true);
  });

  it('--dry-run keeps what the open run reaches and reports the old orphan without deleting it', async () => {
    const { oldOrphan, youngOrphan } = await ageEverythingAndAddOrphans();
    const shown = await cli(['gc', '--older-than', '30d', '--dry-run', '--json']);
    const stderr = Buffer.from(shown.stderr).toString();
    expect(shown.exitCode, stderr).toBe(0);
    const report = JSON.parse(Buffer.from(shown.stdout).toString());
    expect(report).toMatchObject({
      status: 'dry-run',
      dryRun: true,
      olderThan: '30d',
      store: `directory ${storeRoot}`,
    });
    expect(report.openRuns).toBe(1);
    expect(report.deletedKeys).toContain(oldOrphan);
    expect(report.deletedKeys).not.toContain(youngOrphan);
    expect(report.deletedKeys).not.toContain(root);
    expect(report.deletedKeys).not.toContain(child);
    expect(report.reachable.objects).toBeGreaterThanOrEqual(2);
    expect(report.kept.objects + report.deleted.objects).toBe(report.stored.objects);
    expect(await store.has(oldOrphan)).toBe(true);

    const human = await cli(['gc', '--older-than', '30d', '--dry-run']);
    expect(human.exitCode).toBe(0);
    expect(Buffer.from(human.stdout).toString()).toMatch(/would delete \d+ objects? .*\(dry run: nothing deleted\)/);
  });

  it('a sweep deletes old unreachable content and keeps the run’s content and young content', async () => {
    const { oldOrphan, youngOrphan } = await ageEverythingAndAddOrphans();
    const shown = await cli(['gc', '--older-than', '30d', '--json']);
    expect(shown.exitCode, Buffer.from(shown.stderr).toString()).toBe(0);
    const report = JSON.parse(Buffer.from(shown.stdout).toString());
    expect(report.status).toBe('swept');
    expect(report.deletedKeys).toContain(oldOrphan);
    expect(await store.has(oldOrphan)).toBe(false);
    for (const key of [root, child, youngOrphan]) expect(await store.has(key)).toBe(true);
    // Everything the run refers to is still readable.
    const roots = await client.workflow.getHandle(toTerminate[0]!).query(storeRootsQuery);
    for (const key of roots) expect(await store.has(key as ContentKey), key).toBe(true);
    // The open run's checkpoints, every tree and file of them: its diff still reads them all.
    const kept = await cli(['diff', toTerminate[0]!, '--json']);
    expect(kept.exitCode, Buffer.from(kept.stderr).toString()).toBe(0);
    expect(JSON.parse(Buffer.from(kept.stdout).toString()).files).toEqual([{ path: 'added.txt', change: 'added' }]);
    // The finished run's went with the rest of its old content.
    const gone = await cli(['diff', closedRun, '--json']);
    expect(gone.exitCode).toBe(1);
    expect(Buffer.from(gone.stderr).toString()).toContain('is missing from');
  });

  it('refuses to sweep while an open run cannot be queried, and says which', async () => {
    const orphan = await store.put(`orphan kept by the refusal ${randomBytes(4).toString('hex')}`);
    await age(orphan, 40);
    const workflowId = `agent-unserved-${randomBytes(4).toString('hex')}`;
    const input: AgentInput = {
      task: 'nobody serves this run',
      workspace: os.tmpdir(),
      maxSteps: 1,
      mode: 'default',
      askPolicy: 'deny',
      searchAttributes: false,
      selection: { provider: 'openai', model: 'scripted-model', baseUrl: 'http://127.0.0.1:9' },
    } as AgentInput;
    await client.workflow.start(agentWorkflow, {
      workflowId,
      taskQueue: `unserved-${randomBytes(4).toString('hex')}`,
      args: [input],
    });
    toTerminate.push(workflowId);
    await waitFor(async () => {
      for await (const execution of client.workflow.list({ query: `WorkflowId = '${workflowId}'` })) return execution;
      return undefined;
    }, 'the unserved run in visibility');

    const shown = await cli(['gc', '--older-than', '30d']);
    const stderr = Buffer.from(shown.stderr).toString();
    expect(shown.exitCode, stderr).toBe(1);
    expect(stderr).toContain('gc did not sweep');
    expect(stderr).toContain(workflowId);
    expect(await store.has(orphan)).toBe(true);
  }, 60_000);

  it('a bad --older-than is a usage error', async () => {
    for (const value of ['30', 'soon', '1w', '30m'])
      expect((await cli(['gc', '--older-than', value])).exitCode).toBe(2);
  });
});
