// Sub-agents' lifecycle through the real CLI: `durable-agent cancel ROOT` and `durable-agent interrupt ROOT` reach the
// root's children and their commands, `run --sub-agent-steps` and `--sub-agent-timeout` bound each child, and a
// SIGKILLed `durable-agent worker` mid-child leaves a child that resumes on the next worker, started once, whose answer
// its parent picks up.
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import type { ResultPromise } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import type { Client } from '@temporalio/client';
import { stateQuery } from '../../src/protocol/run-messages.js';
import { startScriptedModelServer } from '../../src/scripted-model/server.js';
import { cliRunner, cliSuite, durableAgentBin, startDetached } from '../support/cli.js';
import { temporalAddress, toolResult, workspaceFrom } from '../support/harness.js';
import { hostPidsRunning, uniqueSleepSeconds } from '../support/host-processes.js';
import { waitFor } from '../support/wait.js';
import { childCommandScript } from '../support/sub-agent-scripts.js';

const suite = cliSuite();
const { cli } = suite;

/** `durable-agent start` of a root that may delegate; resolves with its workflow id. */
async function startRoot(run: typeof cli, workspace: string, baseUrl: string): Promise<string> {
  return await startDetached(run, [
    '--cwd',
    workspace,
    '--ask',
    'approve',
    '--base-url',
    baseUrl,
    'Root task: delegate.',
  ]);
}

async function sleepRunning(token: string): Promise<void> {
  await waitFor(async () => ((await hostPidsRunning(`sleep\0${token}`)).length ? true : undefined), 'the sleep', {
    timeoutMs: 60_000,
  });
}

async function runningDescendants(client: Client, root: string): Promise<string[]> {
  const ids: string[] = [];
  const query = `WorkflowId STARTS_WITH "${root}/" AND ExecutionStatus = "Running"`;
  for await (const execution of client.workflow.list({ query })) ids.push(execution.workflowId);
  return ids;
}

async function statusOf(client: Client, workflowId: string): Promise<string> {
  return (await client.workflow.getHandle(workflowId).describe()).status.name;
}

describe('cancel ROOT', () => {
  it('cancels the child and kills its command: no child workflow or command is left running', async () => {
    const token = uniqueSleepSeconds();
    const model = await startScriptedModelServer({ script: childCommandScript(`sleep ${token}`, []) });
    try {
      const root = await startRoot(cli, await workspaceFrom(), model.url);
      await sleepRunning(token);
      const cancelled = await cli(['cancel', root, '--json']);
      expect(cancelled.exitCode, cancelled.stderr).toBe(0);
      expect(JSON.parse(cancelled.stdout)).toMatchObject({ workflowId: root, status: 'cancelled' });
      const { client } = suite.harness;
      expect(await statusOf(client, root)).toBe('CANCELLED');
      expect(await statusOf(client, `${root}/task-1-0`)).toBe('CANCELLED');
      // Visibility lags the executions a moment: wait until it lists no descendant of the root as running.
      await waitFor(
        async () => ((await runningDescendants(client, root)).length === 0 ? true : undefined),
        'no descendant of the root to be listed as running',
        { timeoutMs: 10_000 },
      );
      expect(await hostPidsRunning(`sleep\0${token}`)).toEqual([]);
    } finally {
      await model.close();
    }
  }, 90_000);
});

describe('interrupt ROOT', () => {
  it('cancels the running child, answers its Task call as interrupted, and the root goes on', async () => {
    const token = uniqueSleepSeconds();
    const model = await startScriptedModelServer({
      script: childCommandScript(`sleep ${token}`, [{ for_task: 'Root task', content: 'went on' }]),
    });
    try {
      const root = await startRoot(cli, await workspaceFrom(), model.url);
      await sleepRunning(token);
      const interrupted = await cli(['interrupt', root, 'stop the child', '--json']);
      expect(interrupted.exitCode, interrupted.stderr).toBe(0);
      expect(JSON.parse(interrupted.stdout)).toMatchObject({
        kind: 'interrupt',
        interrupted: [`sub-agent ${root}/task-1-0`],
      });
      const result = await suite.harness.client.workflow.getHandle(root).result();
      expect(result).toMatchObject({ status: 'completed', answer: 'went on' });
      expect(await statusOf(suite.harness.client, `${root}/task-1-0`)).toBe('CANCELLED');
      expect(await hostPidsRunning(`sleep\0${token}`)).toEqual([]);
      const task = toolResult(model.requests.at(-1)!.messages, 'task');
      expect(task.error).toMatchObject({ code: 'CANCELLED', details: { reason: 'interrupted' } });
      expect(task.text).toMatch(/stop the child/);
    } finally {
      await model.close();
    }
  }, 90_000);
});

describe('run --sub-agent-steps and --sub-agent-timeout', () => {
  it("stop a child at its step limit and cancel one past its time, each as its Task call's error", async () => {
    const token = uniqueSleepSeconds();
    const model = await startScriptedModelServer({
      script: [
        {
          for_task: 'Root task',
          tool_calls: [
            { id: 'looping', name: 'Task', arguments: { description: 'loop', prompt: 'Looping child: glob.' } },
            {
              id: 'slow',
              name: 'Task',
              arguments: { description: 'nap', prompt: 'Slow child: sleep.', profile: 'code-edit' },
            },
          ],
        },
        { for_task: 'Looping child', tool_calls: [{ name: 'Glob', arguments: { pattern: '*' } }] },
        { for_task: 'Slow child', tool_calls: [{ name: 'Bash', arguments: { command: `sleep ${token}` } }] },
        { for_task: 'Root task', content: 'limits held' },
      ],
    });
    try {
      const run = await cli([
        'run',
        '--cwd',
        await workspaceFrom(),
        '--json',
        '--ask',
        'approve',
        '--sub-agent-steps',
        '1',
        '--sub-agent-timeout',
        '4s',
        '--base-url',
        model.url,
        'Root task: delegate.',
      ]);
      expect(run.exitCode, run.stderr).toBe(0);
      expect(JSON.parse(run.stdout)).toMatchObject({ status: 'completed', answer: 'limits held' });
      const last = model.requests.at(-1)!.messages;
      const looping = toolResult(last, 'looping');
      expect(looping.error.code).toBe('EXECUTION_ERROR');
      expect(looping.error.message).toMatch(/step limit \(1\)/);
      const slow = toolResult(last, 'slow');
      expect(slow.error.code).toBe('TIMEOUT');
      expect(slow.error.message).toContain('(4 s)');
      expect(await hostPidsRunning(`sleep\0${token}`)).toEqual([]);
    } finally {
      await model.close();
    }
  }, 90_000);
});

const workers: ResultPromise[] = [];
afterAll(() => {
  for (const worker of workers) worker.kill('SIGKILL');
});

/** `durable-agent worker` on `taskQueue`, as an operator starts one; the workers share one content store. */
function startWorker(taskQueue: string, storeDir: string): ResultPromise {
  const worker = execa(
    process.execPath,
    [durableAgentBin, 'worker', '--address', temporalAddress(), '--task-queue', taskQueue],
    {
      env: {
        OPENAI_API_KEY: 'test-key',
        DURABLE_AGENT_STATE_DIR: join(storeDir, 'unused-state'),
        DURABLE_AGENT_STORE_DIR: storeDir,
      },
      reject: false,
      all: true,
    },
  );
  workers.push(worker);
  return worker;
}

describe('SIGKILL of the worker mid-child', () => {
  it('resumes the child on the next worker, never starts it twice, and the root gets its answer', async () => {
    const workspace = await workspaceFrom();
    const storeDir = await mkdtemp(join(tmpdir(), 'durable-agent-store-'));
    const taskQueue = `sub-agents-kill-${randomBytes(4).toString('hex')}`;
    const model = await startScriptedModelServer({
      script: childCommandScript('echo start >> child.log; sleep 8; echo end >> child.log', [
        { for_task: 'Root task', content: 'the child survived' },
      ]),
    });
    const first = startWorker(taskQueue, storeDir);
    try {
      const root = await startRoot(cliRunner({ taskQueue }), workspace, model.url);
      const childId = `${root}/task-1-0`;
      await waitFor(
        async () => ((await readFile(join(workspace, 'child.log'), 'utf8')).includes('start') ? true : undefined),
        'the child command to start',
        { timeoutMs: 60_000 },
      );
      first.kill('SIGKILL');
      expect((await first).signal).toBe('SIGKILL');
      void startWorker(taskQueue, storeDir);

      const handle = suite.harness.client.workflow.getHandle(root);
      const result = await handle.result();
      expect(result).toMatchObject({ status: 'completed', answer: 'the child survived' });
      expect(toolResult(model.requests.at(-1)!.messages, 'task').text).toBe('slept');
      // The child went on after the crash: its command, lost with the worker, was reported to it, not run again.
      const childLast = model.requests
        .filter((request) =>
          String(request.messages.find((message) => message.role === 'user')?.content).includes('Child task'),
        )
        .at(-1)!;
      expect(toolResult(childLast.messages, 'nap').text).toMatch(/worker lost during execution/);
      expect((await readFile(join(workspace, 'child.log'), 'utf8')).match(/start/g)).toHaveLength(1);

      const { events } = await handle.fetchHistory();
      const initiated = events!.filter((event) => event.startChildWorkflowExecutionInitiatedEventAttributes);
      const started = events!.filter((event) => event.childWorkflowExecutionStartedEventAttributes);
      expect(initiated.map((event) => event.startChildWorkflowExecutionInitiatedEventAttributes!.workflowId)).toEqual([
        childId,
      ]);
      expect(started).toHaveLength(1);
      expect(await statusOf(suite.harness.client, childId)).toBe('COMPLETED');
      const view = await handle.query(stateQuery);
      expect(view.children?.map((child) => [child.segment, child.status])).toEqual([['task-1-0', 'completed']]);
    } finally {
      await model.close();
    }
  }, 180_000);
});
