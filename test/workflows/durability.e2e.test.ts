// Durability: the worker process is SIGKILLed while a tool activity of a run is executing; a new worker picks the
// run up and it finishes with the right result, and the side effect of the interrupted command happened once.
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import type { WorkflowHandle } from '@temporalio/client';
import { execa } from 'execa';
import type { ResultPromise } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import type { ScriptTurn, ScriptedModelServer } from '../../src/scripted-model/server.js';
import { startScriptedModelServer } from '../../src/scripted-model/server.js';
import { createTranscriptStore } from '../../src/activities/transcript-store.js';
import { createDirectoryStore } from '../../src/store/directory-store.js';
import { agentWorkflow } from '../../src/workflows/agent.js';
import { transcriptQuery } from '../../src/protocol/run-messages.js';
import { durableAgentBin } from '../support/cli.js';
import { temporalAddress, toolResult, workspaceFrom } from '../support/harness.js';
import { saveHistory } from '../support/histories.js';
import { waitFor } from '../support/wait.js';

const workers: ResultPromise[] = [];
// Both worker processes use the same content store, as the workers of one host do.
const storeDir = join(process.cwd(), '.agent', 'durability-store');

function startWorkerProcess(taskQueue: string): ResultPromise {
  const child = execa(
    process.execPath,
    [durableAgentBin, 'worker', '--address', temporalAddress(), '--task-queue', taskQueue],
    {
      env: {
        OPENAI_API_KEY: 'test-key',
        DURABLE_AGENT_STATE_DIR: join(process.cwd(), '.agent', 'unused-state'),
        DURABLE_AGENT_STORE_DIR: storeDir,
      },
      reject: false,
      all: true,
    },
  );
  workers.push(child);
  return child;
}

afterAll(() => {
  for (const child of workers) child.kill('SIGKILL');
});

interface KilledRun {
  handle: WorkflowHandle<typeof agentWorkflow>;
  workspace: string;
  model: ScriptedModelServer;
}

/**
 * Starts `task` on a worker process, SIGKILLs the worker once `started` holds for the workspace (its first call under
 * way), starts a second worker for the run, and hands the run to `check`.
 */
async function withWorkerKilled(
  task: string,
  script: ScriptTurn[],
  started: { what: string; holds: (workspace: string) => Promise<boolean> },
  check: (run: KilledRun) => Promise<void>,
): Promise<void> {
  const workspace = await workspaceFrom();
  const taskQueue = `durability-${randomBytes(4).toString('hex')}`;
  const model = await startScriptedModelServer({ script });
  const connection = await Connection.connect({ address: temporalAddress() });
  try {
    const client = new Client({ connection });
    const first = startWorkerProcess(taskQueue);
    const handle = await client.workflow.start(agentWorkflow, {
      workflowId: `agent-durability-${randomBytes(4).toString('hex')}`,
      taskQueue,
      args: [
        {
          task,
          workspace,
          selection: { model: 'scripted', baseUrl: model.url },
          maxSteps: 10,
          mode: 'default',
          askPolicy: 'deny',
        },
      ],
    });
    await waitFor(async () => ((await started.holds(workspace)) ? true : undefined), started.what, {
      timeoutMs: 60_000,
    });
    first.kill('SIGKILL');
    expect((await first).signal).toBe('SIGKILL');
    void startWorkerProcess(taskQueue);
    await check({ handle, workspace, model });
  } finally {
    await model.close();
    await connection.close();
  }
}

describe('durability', () => {
  it('survives SIGKILL of the worker during a tool activity', async () => {
    const command = 'echo start >> side-effect.log; sleep 8; echo end >> side-effect.log';
    const readLog = (workspace: string) => readFile(join(workspace, 'side-effect.log'), 'utf8').catch(() => '');
    await withWorkerKilled(
      'crash test',
      [
        { tool_calls: [{ id: 'slow', name: 'Bash', arguments: { command } }] },
        { tool_calls: [{ id: 'check', name: 'ReadFile', arguments: { path: 'side-effect.log' } }] },
        { content: 'The command ran once; the run survived the worker crash.' },
      ],
      { what: 'the command to start', holds: async (workspace) => (await readLog(workspace)).includes('start') },
      async ({ handle, workspace, model }) => {
        const result = await handle.result();
        expect(result.status).toBe('completed');
        expect(result.answer).toBe('The command ran once; the run survived the worker crash.');

        // Bash is never re-run by Temporal (not idempotent): the interrupted call is reported, not repeated.
        const lastRequest = model.requests.at(-1) as { messages: never[] };
        const interrupted = toolResult(lastRequest.messages, 'slow');
        expect(interrupted.error.code).toBe('EXECUTION_ERROR');
        expect(interrupted.text).toMatch(/worker lost during execution/);
        expect((await readLog(workspace)).match(/start/g)).toHaveLength(1);

        // Nothing was lost with the worker: every message the run refers to is readable from the store.
        const transcript = await handle.query(transcriptQuery);
        const messages = await createTranscriptStore(createDirectoryStore(storeDir)).load(transcript);
        expect(messages).toHaveLength(transcript.messages);
        expect(messages.filter((message) => message.role === 'tool').map((message) => message.tool_call_id)).toEqual([
          'slow',
          'check',
        ]);
        expect(messages.at(-1)).toMatchObject({ role: 'assistant', content: result.answer });
        await saveHistory('durability', handle);
      },
    );
  });

  it('loses no change of a call whose worker was SIGKILLed before its checkpoint: the next checkpoint covers it', async () => {
    await withWorkerKilled(
      'crash between a change and its checkpoint',
      [
        { tool_calls: [{ id: 'lost', name: 'Bash', arguments: { command: 'echo one > a.txt; sleep 8' } }] },
        { tool_calls: [{ id: 'next', name: 'WriteFile', arguments: { path: 'b.txt', content: 'two\n' } }] },
        { content: 'done' },
      ],
      {
        what: 'the command to write a.txt',
        holds: async (workspace) => (await readFile(join(workspace, 'a.txt'), 'utf8').catch(() => '')) === 'one\n',
      },
      async ({ handle }) => {
        expect((await handle.result()).status).toBe('completed');
        const files = async (args: string[]) => {
          const result = await execa(
            process.execPath,
            [durableAgentBin, 'diff', handle.workflowId, ...args, '--json'],
            {
              env: { TEMPORAL_ADDRESS: temporalAddress(), DURABLE_AGENT_STORE_DIR: storeDir },
              extendEnv: false,
              reject: false,
            },
          );
          expect(result.exitCode, result.stderr).toBe(0);
          return (JSON.parse(result.stdout) as { files: { path: string; change: string }[] }).files;
        };
        // The lost call left no checkpoint of its own; the next one, from the files before the lost call, shows both.
        expect(await files(['--step', '1'])).toEqual([]);
        expect(await files(['--step', '2'])).toEqual([
          { path: 'a.txt', change: 'added' },
          { path: 'b.txt', change: 'added' },
        ]);
      },
    );
  });
});
