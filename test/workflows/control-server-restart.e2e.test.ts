// Steering, pause, resume and interrupt across Temporal server restarts: the dev server (SQLite) is SIGKILLed and
// started again on the same ports and database file while a run is paused, while a message waits in it, and while an
// interrupt's note is queued behind a command being cancelled. The worker (its own process) and the client reconnect;
// the run stays paused where it was, and each message reaches the model exactly once.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findTemporalBinary } from '../../src/host/temporal-binary.js';
import type { ControlKind, ControlReceipt, ControlRequest } from '../../src/protocol/run-control.js';
import { userMessage } from '../../src/protocol/run-control.js';
import { stateQuery } from '../../src/protocol/run-messages.js';
import { AGENT_SEARCH_ATTRIBUTES } from '../../src/protocol/search-attributes.js';
import type { FaultRun } from '../support/faults/fault-run.js';
import { processesWith, startFaultRun } from '../support/faults/fault-run.js';
import type { RestartableTemporalServer } from '../support/temporal-server.js';
import { startRestartableTemporalServer } from '../support/temporal-server.js';
import { toolResult } from '../support/tool-result.js';
import { writeWorkflowBundle } from '../support/worker-process.js';
import { waitFor } from '../support/wait.js';
import { laterUserMessages } from '../support/model-requests.js';
import { CONTROL_UPDATES } from '../../src/protocol/run-control.js';

let directory: string;
let bundlePath: string;

beforeAll(async () => {
  directory = await mkdtemp(path.join(os.tmpdir(), 'durable-agent-control-restart-'));
  bundlePath = await writeWorkflowBundle(directory);
}, 120_000);

afterAll(async () => {
  await rm(directory, { recursive: true, force: true });
});

/** A run on its own restartable server, with a worker process on it. */
async function restartableRun(script: Parameters<typeof startFaultRun>[1]['script']) {
  const server = await startRestartableTemporalServer({ ui: false, log: () => undefined });
  try {
    const { run } = await startFaultRun(
      { address: server.address, bundlePath },
      { script, input: { askPolicy: 'approve', searchAttributes: true } },
    );
    return { server, run };
  } catch (error) {
    await server.stop();
    throw error;
  }
}

/**
 * SIGKILLs the server, runs `whileDown`, starts the server again and waits until the run's worker answers queries
 * again; returns the ms from the kill to that answer.
 */
async function restart(server: RestartableTemporalServer, run: FaultRun, whileDown = () => {}): Promise<number> {
  const at = Date.now();
  await server.kill();
  whileDown();
  await server.restart();
  await waitFor(
    async () => (await run.handle.query(stateQuery)) ?? undefined,
    'the worker to answer after the restart',
    {
      timeoutMs: 30_000,
    },
  );
  return Date.now() - at;
}

const send = (run: FaultRun, kind: ControlKind, request: ControlRequest): Promise<ControlReceipt> =>
  run.handle.executeUpdate(CONTROL_UPDATES[kind], { args: [request] });

/** The run's current details, as the Web UI shows them, through `temporal workflow metadata`. */
async function currentDetailsOf(server: RestartableTemporalServer, run: FaultRun): Promise<string> {
  const temporal = await findTemporalBinary({ build: false });
  const args = ['workflow', 'metadata', '--address', server.address, '--workflow-id', run.handle.workflowId];
  const { stdout } = await execa(temporal.path, args);
  return stdout;
}

async function statusAttribute(run: FaultRun): Promise<string | undefined> {
  const description = await run.handle.describe();
  return description.typedSearchAttributes.get(AGENT_SEARCH_ATTRIBUTES.status);
}

describe('control messages across Temporal server restarts', () => {
  it('a paused run stays paused through two restarts, takes a message once, and goes on when resumed', async () => {
    const startedAt = Date.now();
    const { server, run } = await restartableRun([
      { tool_calls: [{ id: 'nap', name: 'Bash', arguments: { command: 'sleep 2; echo slept >> ledger.txt' } }] },
      { content: 'Finished after the restarts.' },
    ]);
    const status = async () => (await run.handle.query(stateQuery)).status;
    try {
      await waitFor(async () => (run.servedAt.has(1) ? true : undefined), 'the first model call', {
        timeoutMs: 30_000,
      });
      expect(await send(run, 'pause', { id: 'p-1', text: 'overnight' })).toMatchObject({ kind: 'pause' });
      await waitFor(async () => ((await status()) === 'paused' ? true : undefined), 'the run to pause');
      await waitFor(async () => ((await statusAttribute(run)) === 'paused' ? true : undefined), 'AgentStatus=paused');

      const firstDown = await restart(server, run);
      // Still paused, by the state and the search attribute, and no model call was made meanwhile.
      expect(await status()).toBe('paused');
      expect(await statusAttribute(run)).toBe('paused');
      expect(run.model.requests).toHaveLength(1);
      expect(await send(run, 'message', { id: 'm-1', text: 'also update the docs' })).toMatchObject({
        queued: 1,
        status: 'paused',
      });

      const secondDown = await restart(server, run);
      expect(await status()).toBe('paused');
      // The message the server had recorded before it died is remembered: sent again, by Update or Signal, it is
      // not queued a second time.
      expect(await send(run, 'message', { id: 'm-1', text: 'also update the docs' })).toMatchObject({
        duplicate: true,
      });
      await run.handle.signal(userMessage, { id: 'm-1', text: 'also update the docs' });
      expect((await run.handle.query(stateQuery)).status).toBe('paused');
      expect(run.model.requests).toHaveLength(1);
      // The Web UI's current details, after the restarts: paused, by whom, and one message waiting.
      const metadata = await currentDetailsOf(server, run);
      expect(metadata).toMatch(/paused after step 1: overnight — resume with durable-agent resume/);
      expect(metadata).toContain('**messages waiting** 1 (read before the next step)');

      expect(await send(run, 'resume', { id: 'r-1' })).toMatchObject({ status: 'running' });
      const result = await run.handle.result();
      expect(result.status).toBe('completed');
      expect(result.answer).toBe('Finished after the restarts.');
      expect(run.model.requests).toHaveLength(2);
      expect(laterUserMessages(run.model.requests[1])).toEqual(['also update the docs']);
      expect(await readFile(path.join(run.workspace, 'ledger.txt'), 'utf8')).toBe('slept\n');
      const view = await run.handle.query(stateQuery);
      expect(view.progress.filter((entry) => entry.kind === 'control').map((entry) => entry.status)).toEqual([
        'paused',
        'resumed',
      ]);
      expect(await statusAttribute(run)).toBe('completed');
      console.log(
        `paused run across two server restarts: down ${firstDown} ms and ${secondDown} ms, ${Date.now() - startedAt} ms in all`,
      );
    } finally {
      await run.close();
      await server.stop();
    }
  }, 90_000);

  it("an interrupt's note queued while the server restarts reaches the model once; the command is gone", async () => {
    const startedAt = Date.now();
    const token = `45.${Date.now() % 100000}`;
    const { server, run } = await restartableRun([
      {
        tool_calls: [
          {
            id: 'nap',
            name: 'Bash',
            arguments: { command: `echo started >> ledger.txt; sleep ${token}; echo done >> ledger.txt` },
          },
        ],
      },
      // Slow, so the run is still open when the interrupt is sent again after the restart.
      { content: 'Stopped, as asked.', delay_ms: 3_000 },
    ]);
    try {
      await waitFor(async () => (processesWith(`sleep ${token}`).length > 0 ? true : undefined), 'the sleep to run', {
        timeoutMs: 30_000,
      });
      const receipt = await send(run, 'interrupt', { id: 'i-1', text: 'wrong directory, use src/' });
      expect(receipt).toMatchObject({ interrupted: ['Bash nap'], queued: 1 });
      // Killed at once: the interrupted command's end cannot be recorded while the server is down, so the note stays
      // queued (no model call read it) across the restart.
      const down = await restart(server, run, () => expect(run.model.requests).toHaveLength(1));
      // The same interrupt again (a sender retrying across the outage) cancels nothing more and queues nothing.
      expect(await send(run, 'interrupt', { id: 'i-1', text: 'wrong directory, use src/' })).toMatchObject({
        duplicate: true,
      });
      const result = await run.handle.result();
      expect(result.status).toBe('completed');
      expect(result.answer).toBe('Stopped, as asked.');
      expect(processesWith(`sleep ${token}`)).toEqual([]);
      expect(await readFile(path.join(run.workspace, 'ledger.txt'), 'utf8')).toBe('started\n');
      expect(run.model.requests).toHaveLength(2);
      const second = run.model.requests[1]!;
      expect(toolResult(second.messages, 'nap').error.details).toMatchObject({ reason: 'interrupted' });
      expect(laterUserMessages(second)).toEqual([
        expect.stringMatching(/^\[The operator interrupted Bash nap\.[^]*wrong directory, use src\/$/),
      ]);
      const view = await run.handle.query(stateQuery);
      expect(view.progress.filter((entry) => entry.kind === 'control').map((entry) => entry.status)).toEqual([
        'interrupted',
      ]);
      console.log(
        `interrupt across a server restart: down ${down} ms, ${Date.now() - startedAt} ms in all (the sleep was ${token} s)`,
      );
    } finally {
      await run.close();
      await server.stop();
    }
  }, 90_000);
});
