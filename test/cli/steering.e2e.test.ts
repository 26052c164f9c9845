// Steering messages end to end: `durable-agent say` (and the `sendMessage` Update / `userMessage` Signal a `temporal`
// user sends) against the shared test server, an in-process worker and the scripted model over OpenAI-compatible HTTP.
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { findTemporalBinary } from '../../src/host/temporal-binary.js';
import { stateQuery } from '../../src/protocol/run-messages.js';
import { cliSuite } from '../support/cli.js';
import { startScriptedRun, temporalAddress, workspaceFrom } from '../support/harness.js';
import { waitFor } from '../support/wait.js';
import { laterUserMessages } from '../support/model-requests.js';

const suite = cliSuite();
const { cli } = suite;

describe('say', () => {
  it('queues messages in order, the model reads them at the next step, and an id applies once', async () => {
    const workspace = await workspaceFrom();
    const { handle, model } = await startScriptedRun(suite.harness, {
      workspace,
      script: [
        { tool_calls: [{ id: 'nap', name: 'Bash', arguments: { command: 'sleep 4' } }] },
        { content: 'Done, docs updated too.' },
      ],
      input: { askPolicy: 'approve' },
    });
    const workflowId = handle.workflowId;
    try {
      await waitFor(async () => (model.requests.length > 0 ? true : undefined), 'the first model call');
      const first = await cli(['say', workflowId, 'also update the docs', '--id', 'm-1', '--json']);
      expect(first.exitCode, first.stderr).toBe(0);
      expect(JSON.parse(first.stdout)).toMatchObject({ workflowId, id: 'm-1', kind: 'message', queued: 1 });
      const second = await cli(['say', workflowId, 'and keep it short']);
      expect(second.exitCode, second.stderr).toBe(0);
      expect(second.stdout).toMatch(/queued .*2 waiting/);
      // The same id again (a script retrying): taken once.
      const again = await cli(['say', workflowId, 'also update the docs', '--id', 'm-1', '--json']);
      expect(JSON.parse(again.stdout)).toMatchObject({ id: 'm-1', duplicate: true });
      // A `temporal` user's Signal of the same shape queues too.
      const temporal = await findTemporalBinary({ build: false });
      const signal = await execa(
        temporal.path,
        [
          'workflow',
          'signal',
          '--address',
          temporalAddress(),
          '--workflow-id',
          workflowId,
          '--name',
          'userMessage',
          '--input',
          JSON.stringify({ id: 'from-temporal', text: 'signalled note' }),
        ],
        { reject: false },
      );
      expect(signal.exitCode, signal.stderr).toBe(0);
      const result = await handle.result();
      expect(result.status).toBe('completed');
      expect(model.requests).toHaveLength(2);
      expect(laterUserMessages(model.requests[1])).toEqual([
        'also update the docs',
        'and keep it short',
        'signalled note',
      ]);
      const view = await handle.query(stateQuery);
      expect(view.progress.filter((entry) => entry.kind === 'message').map((entry) => entry.text)).toEqual(
        expect.arrayContaining([
          expect.stringMatching(/^message m-1 queued/),
          expect.stringMatching(/^message m-1 read before step 2/),
        ]),
      );
      // A finished run refuses with the reason.
      const late = await cli(['say', workflowId, 'too late']);
      expect(late.exitCode).toBe(1);
      expect(late.stderr).toMatch(/did not take the message: .*finished/);
    } finally {
      await model.close();
    }
  }, 120_000);

  it('a message that arrives while the model answers keeps the run going', async () => {
    const workspace = await workspaceFrom();
    const { handle, model } = await startScriptedRun(suite.harness, {
      workspace,
      script: [{ content: 'First answer.', delay_ms: 3000 }, { content: 'Second answer, with the message read.' }],
    });
    try {
      await waitFor(async () => (model.requests.length > 0 ? true : undefined), 'the first model call');
      const said = await cli(['say', handle.workflowId, 'one more thing']);
      expect(said.exitCode, said.stderr).toBe(0);
      const result = await handle.result();
      expect(result.answer).toBe('Second answer, with the message read.');
      expect(laterUserMessages(model.requests[1])).toEqual(['one more thing']);
    } finally {
      await model.close();
    }
  }, 120_000);

  it('refuses empty, oversized and badly named messages with the reason', async () => {
    const workspace = await workspaceFrom();
    const { handle, model } = await startScriptedRun(suite.harness, {
      workspace,
      script: [{ content: 'slow', delay_ms: 5000 }],
    });
    try {
      await waitFor(async () => (model.requests.length > 0 ? true : undefined), 'the model call');
      const huge = await cli(['say', handle.workflowId, 'x'.repeat(40_000)]);
      expect(huge.exitCode).toBe(1);
      expect(huge.stderr).toMatch(/40000 bytes; a message takes at most 32768/);
      const badId = await cli(['say', handle.workflowId, 'hi', '--id', 'no spaces allowed']);
      expect(badId.exitCode).toBe(1);
      expect(badId.stderr).toMatch(/id must be/);
      expect((await cli(['say', handle.workflowId])).exitCode).toBe(2);
      await handle.result();
    } finally {
      await model.close();
    }
  }, 120_000);
});
