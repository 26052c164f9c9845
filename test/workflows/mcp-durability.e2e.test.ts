// MCP calls survive their worker: the worker process is SIGKILLed while two runs each wait on a slow MCP call. The
// read-only call is tried again on the next worker and completes; the call that may have changed something is not
// repeated and is reported as lost mid-call. Nothing is lost silently.
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChatMessage } from '../../src/protocol/model.js';
import { startScriptedModelServer } from '../../src/scripted-model/server.js';
import { agentWorkflow } from '../../src/workflows/agent.js';
import { temporalAddress, toolResult, workspaceFrom } from '../support/harness.js';
import { fixtureServer } from '../support/mcp-servers.js';
import { waitFor } from '../support/wait.js';
import type { WorkerProcess } from '../support/worker-process.js';
import { startWorkerProcess, writeWorkflowBundle } from '../support/worker-process.js';

const workers: WorkerProcess[] = [];
let directory: string;
let bundlePath: string;

beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), 'durable-agent-mcp-durability-'));
  bundlePath = await writeWorkflowBundle(directory);
}, 120_000);
afterAll(async () => {
  for (const worker of workers) await worker.kill();
});

async function startWorker(taskQueue: string): Promise<WorkerProcess> {
  const worker = await startWorkerProcess({
    address: temporalAddress(),
    taskQueue,
    storeDir: join(directory, 'store'),
    bundlePath,
    // The runs bring their own stdio server (run in the command sandbox).
    env: { DURABLE_AGENT_MCP_RUN_SERVERS: 'all' },
  });
  workers.push(worker);
  return worker;
}

const fileText = (file: string) => readFile(file, 'utf8').catch(() => '');

describe('MCP durability', () => {
  it('retries a read-only call after SIGKILL of its worker and reports a non-idempotent one as lost', async () => {
    const taskQueue = `mcp-durability-${randomBytes(4).toString('hex')}`;
    // In the workspaces: the servers run in the sandbox, and write nowhere else.
    const readWorkspace = await workspaceFrom();
    const appendWorkspace = await workspaceFrom();
    const readLog = join(readWorkspace, 'read.log');
    const appendLog = join(appendWorkspace, 'append.log');
    const reader = await startScriptedModelServer({
      script: [
        { tool_calls: [{ id: 'wait', name: 'mcp__fixture__slow_read', arguments: { seconds: 8 } }] },
        { content: 'read done' },
      ],
    });
    const appender = await startScriptedModelServer({
      script: [
        {
          tool_calls: [{ id: 'append', name: 'mcp__fixture__slow_append', arguments: { seconds: 60, line: 'once' } }],
        },
        { content: 'append reported' },
      ],
    });
    const connection = await Connection.connect({ address: temporalAddress() });
    try {
      const client = new Client({ connection });
      const first = await startWorker(taskQueue);
      const start = async (model: { url: string }, workspace: string, log: string) =>
        client.workflow.start(agentWorkflow, {
          workflowId: `agent-mcp-durability-${randomBytes(4).toString('hex')}`,
          taskQueue,
          args: [
            {
              task: 'slow MCP call',
              workspace,
              selection: { model: 'scripted', baseUrl: model.url },
              maxSteps: 5,
              mode: 'default',
              askPolicy: 'approve',
              mcpServers: { fixture: fixtureServer(log) },
            },
          ],
        });
      const readRun = await start(reader, readWorkspace, readLog);
      const appendRun = await start(appender, appendWorkspace, appendLog);
      await waitFor(
        async () =>
          (await fileText(readLog)).includes('slow_read start') && (await fileText(appendLog)).includes('once')
            ? true
            : undefined,
        'both MCP calls to reach their servers',
        { timeoutMs: 60_000 },
      );
      await first.kill();
      await startWorker(taskQueue);

      expect(await readRun.result()).toMatchObject({ status: 'completed', answer: 'read done' });
      expect(await appendRun.result()).toMatchObject({ status: 'completed', answer: 'append reported' });

      // Read-only: tried again on the new worker, it completed there.
      const read = toolResult((reader.requests.at(-1) as { messages: ChatMessage[] }).messages, 'wait');
      expect(read).toMatchObject({ status: 'success', text: 'waited 8 s' });
      expect((await fileText(readLog)).match(/slow_read start/g)).toHaveLength(2);
      expect(await fileText(readLog)).toContain('slow_read end');

      // Not idempotent: never sent twice, and reported as possibly done.
      const append = toolResult((appender.requests.at(-1) as { messages: ChatMessage[] }).messages, 'append');
      expect(append.error).toMatchObject({ code: 'EXECUTION_ERROR', details: { reason: 'worker_lost' } });
      expect(append.text).toMatch(/may have run 'mcp__fixture__slow_append'/);
      expect((await fileText(appendLog)).match(/slow_append once/g)).toHaveLength(1);
    } finally {
      await reader.close();
      await appender.close();
      await connection.close();
    }
  }, 180_000);
});
