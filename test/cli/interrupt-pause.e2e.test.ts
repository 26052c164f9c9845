// Interrupt, pause and resume end to end: `durable-agent interrupt | pause | resume` (and the `pause`, `resume` and
// `interrupt` Updates and Signals a `temporal` user sends to a run that is not signed) against the shared test server,
// an in-process worker and the scripted model over OpenAI-compatible HTTP.
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { findTemporalBinary } from '../../src/host/temporal-binary.js';
import type { ChatMessage } from '../../src/protocol/model.js';
import { stateQuery } from '../../src/protocol/run-messages.js';
import { cliSuite } from '../support/cli.js';
import { processesWith } from '../support/faults/fault-run.js';
import { startScriptedRun, temporalAddress, toolResult, workspaceFrom } from '../support/harness.js';
import { waitFor } from '../support/wait.js';
import { laterUserMessages } from '../support/model-requests.js';

const suite = cliSuite();
const { cli } = suite;

/** The user messages of a model request after the task itself. */

async function temporal(args: string[]) {
  const binary = await findTemporalBinary({ build: false });
  return execa(binary.path, [...args, '--address', temporalAddress()], { reject: false });
}

describe('interrupt', () => {
  it('kills a running command, answers it as interrupted and goes on with the message', async () => {
    const workspace = await workspaceFrom();
    await writeFile(path.join(workspace, 'notes.md'), 'notes\n');
    const token = `60.${Date.now() % 100000}`;
    const { handle, model } = await startScriptedRun(suite.harness, {
      workspace,
      script: [
        {
          tool_calls: [
            { id: 'quick', name: 'ReadFile', arguments: { path: 'notes.md' } },
            {
              id: 'nap',
              name: 'Bash',
              arguments: { command: `echo started > started.txt; sleep ${token}; echo done > done.txt` },
            },
          ],
        },
        { content: 'Understood, stopped.' },
      ],
      input: { askPolicy: 'approve' },
    });
    try {
      await waitFor(async () => (processesWith(`sleep ${token}`).length > 0 ? true : undefined), 'the sleep to run', {
        timeoutMs: 60_000,
      });
      const sent = Date.now();
      const interrupted = await cli(['interrupt', handle.workflowId, 'wrong directory, use src/', '--json']);
      const tookMs = Date.now() - sent;
      expect(interrupted.exitCode, interrupted.stderr).toBe(0);
      expect(JSON.parse(interrupted.stdout)).toMatchObject({
        kind: 'interrupt',
        interrupted: ['Bash nap'],
        queued: 1,
      });
      const result = await handle.result();
      expect(result.status).toBe('completed');
      // The command's whole process group is gone, and it never got past the sleep.
      expect(processesWith(`sleep ${token}`)).toEqual([]);
      expect(await readFile(path.join(workspace, 'started.txt'), 'utf8')).toBe('started\n');
      await expect(readFile(path.join(workspace, 'done.txt'), 'utf8')).rejects.toThrow(/ENOENT/);
      const second = model.requests[1] as { messages: ChatMessage[] };
      expect(model.requests).toHaveLength(2);
      // The read that finished keeps its result; the command is answered as interrupted, with the reason.
      expect(toolResult(second.messages, 'quick').status).toBe('success');
      const nap = toolResult(second.messages, 'nap');
      expect(nap.error.code).toBe('CANCELLED');
      expect(nap.error.details).toMatchObject({ reason: 'interrupted' });
      expect(nap.text).toMatch(/interrupted by the operator .*wrong directory, use src\//i);
      const [note] = laterUserMessages(second);
      expect(note).toMatch(/^\[The operator interrupted Bash nap\./);
      expect(note).toMatch(/wrong directory, use src\/$/);
      console.log(`interrupt of a running sleep: receipt after ${tookMs} ms (CLI start included)`);
    } finally {
      await model.close();
    }
  }, 120_000);

  it('drops an interrupted model call, and says nothing was under way when nothing was', async () => {
    const workspace = await workspaceFrom();
    const { handle, model } = await startScriptedRun(suite.harness, {
      workspace,
      script: [
        { content: 'A long answer that never arrives.', delay_ms: 30_000 },
        { tool_calls: [{ id: 'pause-here', name: 'Bash', arguments: { command: 'sleep 3' } }] },
        { content: 'Answer after the interrupt.' },
      ],
      input: { askPolicy: 'approve' },
    });
    try {
      await waitFor(async () => (model.requests.length > 0 ? true : undefined), 'the first model call');
      // A `temporal` user's Update of the documented name.
      const update = await temporal([
        'workflow',
        'update',
        'execute',
        '--workflow-id',
        handle.workflowId,
        '--name',
        'interrupt',
        '--input',
        JSON.stringify({ id: 'i-1' }),
      ]);
      expect(update.exitCode, update.stderr).toBe(0);
      expect(update.stdout).toContain('model call of step 1');
      await waitFor(async () => (model.requests.length > 1 ? true : undefined), 'the next model call');
      expect(laterUserMessages(model.requests[1])).toEqual([
        expect.stringMatching(/^\[The operator interrupted model call of step 1\./),
      ]);
      // Paused: nothing is under way, the message queues.
      expect((await cli(['pause', handle.workflowId])).exitCode).toBe(0);
      await waitFor(async () => ((await handle.query(stateQuery)).status === 'paused' ? true : undefined), 'paused');
      const idle = await cli(['interrupt', handle.workflowId, 'read this after', '--json']);
      expect(JSON.parse(idle.stdout)).toMatchObject({ interrupted: [], queued: 1, status: 'paused' });
      expect((await cli(['resume', handle.workflowId])).exitCode).toBe(0);
      const result = await handle.result();
      expect(result.answer).toBe('Answer after the interrupt.');
      expect(laterUserMessages(model.requests[2]).at(-1)).toBe('read this after');
    } finally {
      await model.close();
    }
  }, 120_000);
});

describe('pause and resume', () => {
  it('stops at the next step boundary, waits shown as paused, queues messages, and goes on after resume', async () => {
    const workspace = await workspaceFrom();
    const { handle, model } = await startScriptedRun(suite.harness, {
      workspace,
      script: [
        { tool_calls: [{ id: 'nap', name: 'Bash', arguments: { command: 'sleep 3; echo slept > slept.txt' } }] },
        { content: 'Finished after the pause.' },
      ],
      input: { askPolicy: 'approve' },
    });
    const workflowId = handle.workflowId;
    try {
      await waitFor(async () => (model.requests.length > 0 ? true : undefined), 'the first model call');
      const notPaused = await cli(['resume', workflowId]);
      expect(notPaused.exitCode).toBe(1);
      expect(notPaused.stderr).toMatch(/did not take the resume: .*not paused/);
      // Asked during the command: it takes effect after it.
      const paused = await cli(['pause', workflowId, 'overnight', '--id', 'p-1']);
      expect(paused.exitCode, paused.stderr).toBe(0);
      expect(paused.stdout).toMatch(/pausing at its next step boundary/);
      await waitFor(async () => ((await handle.query(stateQuery)).status === 'paused' ? true : undefined), 'paused', {
        timeoutMs: 30_000,
      });
      expect(await readFile(path.join(workspace, 'slept.txt'), 'utf8')).toBe('slept\n');
      const status = await cli(['status', workflowId, '--json']);
      expect(JSON.parse(status.stdout)).toMatchObject({ status: 'paused' });
      await waitFor(async () => {
        const listed = await cli(['list', '--status', 'paused', '--json']);
        return listed.stdout.includes(workflowId) ? true : undefined;
      }, 'list --status paused to find the run');
      // The Web UI's current details say so.
      const metadata = await temporal(['workflow', 'metadata', '--workflow-id', workflowId]);
      expect(metadata.stdout).toMatch(/paused by .* after step 1: overnight — resume with durable-agent resume/);
      // Pausing again changes nothing; a message waits for the resume.
      expect(JSON.parse((await cli(['pause', workflowId, '--json'])).stdout)).toMatchObject({ status: 'paused' });
      expect((await cli(['say', workflowId, 'also write a summary'])).exitCode).toBe(0);
      await new Promise((resolve) => setTimeout(resolve, 1500));
      expect(model.requests).toHaveLength(1);
      // A `temporal` user resumes with the documented Update name.
      const resumed = await temporal([
        'workflow',
        'update',
        'execute',
        '--workflow-id',
        workflowId,
        '--name',
        'resume',
        '--input',
        JSON.stringify({ id: 'r-1' }),
      ]);
      expect(resumed.exitCode, resumed.stderr).toBe(0);
      const result = await handle.result();
      expect(result.answer).toBe('Finished after the pause.');
      expect(laterUserMessages(model.requests[1])).toEqual(['also write a summary']);
      const view = await handle.query(stateQuery);
      const lines = view.progress.filter((entry) => entry.kind === 'control').map((entry) => entry.text);
      expect(lines).toEqual([
        expect.stringMatching(/^paused by .* after step 1: overnight — resume with durable-agent resume /),
        expect.stringMatching(/^resumed after \d+ s paused/),
      ]);
    } finally {
      await model.close();
    }
  }, 120_000);

  it('takes the pauseRun and resumeRun Signals of a temporal user', async () => {
    const workspace = await workspaceFrom();
    const { handle, model } = await startScriptedRun(suite.harness, {
      workspace,
      script: [{ tool_calls: [{ id: 'nap', name: 'Bash', arguments: { command: 'sleep 2' } }] }, { content: 'Done.' }],
      input: { askPolicy: 'approve' },
    });
    try {
      await waitFor(async () => (model.requests.length > 0 ? true : undefined), 'the first model call');
      const signal = (name: string, id: string) =>
        temporal([
          'workflow',
          'signal',
          '--workflow-id',
          handle.workflowId,
          '--name',
          name,
          '--input',
          JSON.stringify({ id }),
        ]);
      expect((await signal('pauseRun', 's-1')).exitCode).toBe(0);
      await waitFor(async () => ((await handle.query(stateQuery)).status === 'paused' ? true : undefined), 'paused', {
        timeoutMs: 30_000,
      });
      expect((await signal('resumeRun', 's-2')).exitCode).toBe(0);
      expect((await handle.result()).answer).toBe('Done.');
    } finally {
      await model.close();
    }
  }, 120_000);
});
