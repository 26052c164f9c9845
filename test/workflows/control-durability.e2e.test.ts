// Steering, pause, resume and interrupt across worker SIGKILLs: each message is taken by a worker that is then killed;
// a new worker replays the run, and every message is applied exactly once — nothing lost, nothing doubled.
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { ControlKind, ControlRequest } from '../../src/protocol/run-control.js';
import { stateQuery } from '../../src/protocol/run-messages.js';
import type { FaultEnv } from '../support/faults/fault-run.js';
import { startFaultRun } from '../support/faults/fault-run.js';
import { writeWorkflowBundle } from '../support/worker-process.js';
import { waitFor } from '../support/wait.js';
import { whenPolled } from '../support/when-polled.js';
import { laterUserMessages } from '../support/model-requests.js';
import { CONTROL_UPDATES } from '../../src/protocol/run-control.js';
import { untilNoTaskWaits } from '../../src/cli/task-settled.js';
import { pendingTaskOf } from '../support/pending-task.js';
import { historyToJSON } from '@temporalio/common/lib/proto-utils.js';
import type { JsonHistory } from '../support/history-json.js';
import { outline } from '../support/history-json.js';

let directory: string;
let env: FaultEnv;

beforeAll(async () => {
  directory = await mkdtemp(path.join(os.tmpdir(), 'durable-agent-control-'));
  env = { address: inject('temporalAddress'), bundlePath: await writeWorkflowBundle(directory) };
}, 120_000);

afterAll(async () => {
  await rm(directory, { recursive: true, force: true });
});

describe('control messages across worker SIGKILLs', () => {
  it('say, pause, resume and interrupt each apply exactly once', async () => {
    const { run, first } = await startFaultRun(env, {
      script: [
        { tool_calls: [{ id: 'nap', name: 'Bash', arguments: { command: 'touch nap-started && sleep 4' } }] },
        { content: 'An answer the interrupt drops.', delay_ms: 20_000 },
        { content: 'All done.' },
        { content: 'All done.' },
      ],
    });
    // An Update waits, as the CLI's do, while a task of the run waits unstarted.
    const send = (kind: ControlKind, request: ControlRequest) =>
      whenPolled(async () => {
        await untilNoTaskWaits(pendingTaskOf(run.handle), Date.now() + 30_000);
        return run.handle.executeUpdate(CONTROL_UPDATES[kind], { args: [request] });
      });
    const status = async () => (await whenPolled(() => run.handle.query(stateQuery))).status;
    try {
      await waitFor(async () => (run.servedAt.has(1) ? true : undefined), 'the first model call', {
        timeoutMs: 60_000,
      });
      // Taken by the first worker, which is then killed mid-command.
      expect(await send('message', { id: 'm-1', text: 'also update the docs' })).toMatchObject({ queued: 1 });
      expect(await send('pause', { id: 'p-1', text: 'overnight' })).toMatchObject({ kind: 'pause' });
      await waitFor(
        async () => (existsSync(path.join(run.workspace, 'nap-started')) ? true : undefined),
        'the command',
        {
          timeoutMs: 30_000,
        },
      );
      await first.kill();
      const second = await run.startWorker();
      await waitFor(async () => ((await status()) === 'paused' ? true : undefined), 'the run to pause', {
        timeoutMs: 60_000,
      });
      // The same message again (a retrying sender) is recognised, and the paused run stays paused across a kill.
      expect(await send('message', { id: 'm-1', text: 'also update the docs' })).toMatchObject({ duplicate: true });
      await second.kill();
      const third = await run.startWorker();
      expect(await status()).toBe('paused');
      expect(run.model.requests).toHaveLength(1);
      expect(await send('resume', { id: 'r-1' })).toMatchObject({ status: 'running' });
      await waitFor(async () => (run.servedAt.has(2) ? true : undefined), 'the model call after the resume', {
        timeoutMs: 60_000,
      });
      expect(laterUserMessages(run.model.requests[1])).toEqual(['also update the docs']);
      // Interrupted during the model call; the worker that took it is killed right after.
      const receipt = await send('interrupt', { id: 'i-1', text: 'stop that' });
      expect(receipt.interrupted).toEqual(['model call of step 2']);
      await third.kill();
      await run.startWorker();
      const result = await run.handle.result();
      expect(result.status).toBe('completed');
      expect(result.answer).toBe('All done.');
      const last = laterUserMessages(run.model.requests.at(-1));
      expect(last.filter((text) => text === 'also update the docs')).toHaveLength(1);
      expect(last.filter((text) => text.includes('stop that'))).toEqual([
        expect.stringMatching(/^\[The operator interrupted model call of step 2\.[^]*stop that$/),
      ]);
      const view = await run.handle.query(stateQuery);
      const control = view.progress.filter((entry) => entry.kind === 'control').map((entry) => entry.status);
      expect(control).toEqual(['paused', 'resumed', 'interrupted']);
    } catch (error) {
      const history = JSON.parse(historyToJSON(await run.handle.fetchHistory())) as JsonHistory;
      console.error(`[control-durability] the run's history when it failed: ${outline(history)}`);
      throw error;
    } finally {
      await run.close();
    }
  }, 240_000);
});
