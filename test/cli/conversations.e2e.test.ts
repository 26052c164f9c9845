// Conversations end to end through the real CLI: `run --session` answers and waits, `continue` (and the `sendMessage`
// Update a `temporal` user sends) is the next request with the whole conversation, an idle session completes, and
// `continue` on a closed task starts the next run under the same workflow id from where it ended.
import { randomBytes } from 'node:crypto';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { findTemporalBinary } from '../../src/host/temporal-binary.js';
import type { ChatMessage } from '../../src/protocol/model.js';
import { stateQuery } from '../../src/protocol/run-messages.js';
import { startScriptedModelServer } from '../../src/scripted-model/server.js';
import { cliRunner, cliSuite } from '../support/cli.js';
import { startWorkerProcess, writeWorkflowBundle } from '../support/worker-process.js';
import { temporalAddress, workspaceFrom } from '../support/harness.js';
import { waitFor } from '../support/wait.js';

const suite = cliSuite();
const { cli } = suite;

function userTexts(body: unknown): string[] {
  return (body as { messages: ChatMessage[] }).messages
    .filter((message) => message.role === 'user')
    .map((message) => String(message.content));
}

function assistantTexts(body: unknown): string[] {
  return (body as { messages: ChatMessage[] }).messages
    .filter((message) => message.role === 'assistant')
    .map((message) => String(message.content));
}

describe('conversations', () => {
  it('run --session waits after its answer; continue, the temporal CLI and an idle close go on in one conversation', async () => {
    const workspace = await workspaceFrom();
    const model = await startScriptedModelServer({
      script: [{ content: 'Four.' }, { content: 'Eight.' }, { content: 'Sixteen.' }, { content: 'Thirty-two.' }],
    });
    const env = suite.harness.storeEnv;
    try {
      const run = await cli(
        ['run', '--session', '--idle', '8s', '--cwd', workspace, '--base-url', model.url, '--json', 'What is 2 + 2?'],
        env,
      );
      expect(run.exitCode, run.stderr).toBe(0);
      const first = JSON.parse(run.stdout) as { workflowId: string };
      expect(first).toMatchObject({ status: 'waiting_input', answer: 'Four.', requests: 1 });
      const { workflowId } = first;
      const handle = suite.harness.client.workflow.getHandle(workflowId);
      const firstRunId = (await handle.describe()).runId;

      const status = JSON.parse((await cli(['status', workflowId, '--json'], env)).stdout);
      expect(status).toMatchObject({ status: 'waiting_input', answer: 'Four.' });
      const listed = await waitFor(async () => {
        const list = await cli(['list', '--status', 'waiting_input', '--json', '--limit', '200'], env);
        if (list.exitCode !== 0) throw new Error(list.stderr);
        return (JSON.parse(list.stdout) as { workflowId: string }[]).find((row) => row.workflowId === workflowId);
      }, 'the waiting session in list --status waiting_input');
      expect(listed).toMatchObject({ status: 'waiting_input' });

      const second = await cli(['continue', workflowId, 'And times two?'], env);
      expect(second.exitCode, second.stderr).toBe(0);
      expect(second.stdout).toBe('Eight.');
      expect(second.stderr).toMatch(/request 2 answered · waiting for the next: durable-agent continue/);
      expect(userTexts(model.requests[1])).toEqual(['What is 2 + 2?', 'And times two?']);
      expect(assistantTexts(model.requests[1])).toEqual(['Four.']);

      // A `temporal` user sends the next request with the documented Update (an unsigned run takes it unsigned).
      const temporal = await findTemporalBinary({ build: false });
      const update = await execa(
        temporal.path,
        [
          'workflow',
          'update',
          'execute',
          '--address',
          temporalAddress(),
          '--workflow-id',
          workflowId,
          '--name',
          'sendMessage',
          '--input',
          JSON.stringify({ id: 'from-temporal', text: 'And times two again?' }),
        ],
        { reject: false },
      );
      expect(update.exitCode, update.stderr).toBe(0);
      expect(update.stdout).toMatch(/waiting_input/);
      const third = await waitFor(async () => {
        const view = await handle.query(stateQuery);
        return view.conversation?.count === 3 && view.status === 'waiting_input' ? view : undefined;
      }, 'the third request answered');
      expect(third.answer).toBe('Sixteen.');
      expect(userTexts(model.requests[2])).toEqual(['What is 2 + 2?', 'And times two?', 'And times two again?']);

      // `history` lists the requests of the conversation with the step each began at.
      const history = await cli(['history', workflowId], env);
      expect(history.exitCode, history.stderr).toBe(0);
      expect(history.stdout).toMatch(/request 2 at step 2: And times two\?/);
      expect(history.stdout).toMatch(/request 3 at step 3: And times two again\?/);

      // Nobody asks within 8 s: the conversation closes as completed with its last answer.
      expect(await handle.result()).toMatchObject({ status: 'completed', answer: 'Sixteen.' });

      // `continue` on the closed task: the next run of the chain, under the same id, with the whole conversation.
      const fourth = await cli(['continue', workflowId, 'Once more?', '--json'], env);
      expect(fourth.exitCode, fourth.stderr).toBe(0);
      expect(JSON.parse(fourth.stdout)).toMatchObject({ workflowId, answer: 'Thirty-two.', requests: 4 });
      // It kept the session setting: it waits again.
      expect(JSON.parse(fourth.stdout)).toMatchObject({ status: 'waiting_input' });
      expect((await handle.describe()).runId).not.toBe(firstRunId);
      expect(userTexts(model.requests[3])).toEqual([
        'What is 2 + 2?',
        'And times two?',
        'And times two again?',
        'Once more?',
      ]);
      expect(assistantTexts(model.requests[3])).toEqual(['Four.', 'Eight.', 'Sixteen.']);
      await handle.cancel();
      await handle.result().catch(() => undefined);
    } finally {
      await model.close();
    }
  }, 180_000);

  it('run --continue on a completed run goes on with its transcript; a run cancelled mid-step is refused', async () => {
    const workspace = await workspaceFrom();
    const model = await startScriptedModelServer({
      script: [
        { content: 'Done: the build directory is clean.' },
        { content: 'Also done: the docs are updated.' },
        { tool_calls: [{ id: 'nap', name: 'Bash', arguments: { command: 'sleep 30' } }] },
      ],
    });
    const env = suite.harness.storeEnv;
    try {
      const ask = ['--cwd', workspace, '--base-url', model.url, '--ask', 'approve'];
      const run = await cli(['run', ...ask, '--json', 'clean the build directory'], env);
      expect(run.exitCode, run.stderr).toBe(0);
      const { workflowId } = JSON.parse(run.stdout) as { workflowId: string };
      const next = await cli(['run', '--continue', workflowId, '--json', 'also update the docs'], env);
      expect(next.exitCode, next.stderr).toBe(0);
      expect(JSON.parse(next.stdout)).toMatchObject({
        status: 'completed',
        answer: 'Also done: the docs are updated.',
      });
      expect(userTexts(model.requests[1])).toEqual(['clean the build directory', 'also update the docs']);

      // Cancelled in the middle of a tool call: its transcript may end with calls nobody answered.
      const started = await cli(['continue', workflowId, 'and take a nap', '--detach', '--json'], env);
      expect(started.exitCode, started.stderr).toBe(4);
      await waitFor(async () => (model.requests.length === 3 ? true : undefined), 'the third model call');
      const handle = suite.harness.client.workflow.getHandle(workflowId);
      await waitFor(
        async () => ((await handle.describe()).raw.pendingActivities?.length ? true : undefined),
        'the nap started',
      );
      await handle.cancel();
      await handle.result().catch(() => undefined);
      const refused = await cli(['continue', workflowId, 'wake up'], env);
      expect(refused.exitCode).toBe(1);
      expect(refused.stderr).toMatch(/cannot continue .*ended cancelled in the middle of a step; fork it/);
    } finally {
      await model.close();
    }
  }, 180_000);

  it('a request sent while the worker is dead is taken once a worker is back, and answered once', async () => {
    const workspace = await workspaceFrom();
    const directory = await mkdtemp(join(tmpdir(), 'durable-agent-session-kill-'));
    const taskQueue = `session-kill-${randomBytes(4).toString('hex')}`;
    const storeDir = join(directory, 'store');
    const worker = {
      address: temporalAddress(),
      taskQueue,
      storeDir,
      bundlePath: await writeWorkflowBundle(directory),
    };
    const model = await startScriptedModelServer({ script: [{ content: 'First.' }, { content: 'Second.' }] });
    const run = cliRunner({ taskQueue });
    const env = { DURABLE_AGENT_STORE_DIR: storeDir };
    const first = await startWorkerProcess(worker);
    let back;
    let workflowId: string | undefined;
    try {
      const started = await run(
        ['run', '--session', '--cwd', workspace, '--base-url', model.url, '--json', 'first question'],
        env,
      );
      expect(started.exitCode, started.stderr).toBe(0);
      workflowId = (JSON.parse(started.stdout) as { workflowId: string }).workflowId;
      await first.kill();
      // No worker: the Update waits on the server for one.
      const pending = run(['continue', workflowId, 'second question', '--id', 'q-2', '--json'], env);
      await new Promise((resolve) => setTimeout(resolve, 2000));
      expect(pending.exitCode).toBeNull();
      back = await startWorkerProcess(worker);
      const again = await pending;
      expect(again.exitCode, again.stderr).toBe(0);
      expect(JSON.parse(again.stdout)).toMatchObject({ status: 'waiting_input', answer: 'Second.', requests: 2 });
      expect(model.requests).toHaveLength(2);
      expect(userTexts(model.requests[1])).toEqual(['first question', 'second question']);
    } finally {
      await first.kill();
      if (workflowId) {
        const handle = suite.harness.client.workflow.getHandle(workflowId);
        await handle.cancel().catch(() => undefined);
        if (back) await handle.result().catch(() => undefined);
      }
      await back?.stop();
      await model.close();
    }
  }, 180_000);
});
