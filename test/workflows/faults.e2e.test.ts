// Faults, end to end on a real Temporal server with worker processes: the worker SIGKILLed during a model call,
// between an edit's temp file and its rename, during a command and during an MCP call; the server killed and restarted on its SQLite
// file; the model endpoint resetting the connection mid-stream. Each run must finish with the right answer, every
// file exactly as it should be (no edit lost, none applied twice), no temp file or process left behind. The time to
// resume is printed: it is set by the timeouts that notice the fault (heartbeat, start-to-close, retry interval).
// The scenarios run at once (most of their time is waiting for a timeout); `npm run soak` repeats them.
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { commandKill } from '../support/faults/command-kill.js';
import type { FaultEnv, FaultOutcome } from '../support/faults/fault-run.js';
import { fileWriteKill } from '../support/faults/file-write-kill.js';
import { mcpCallKill } from '../support/faults/mcp-call-kill.js';
import { modelCallKill } from '../support/faults/model-call-kill.js';
import { serverRestart } from '../support/faults/server-restart.js';
import { streamDrop } from '../support/faults/stream-drop.js';
import { writeWorkflowBundle } from '../support/worker-process.js';

let directory: string;
let env: FaultEnv;

beforeAll(async () => {
  directory = await mkdtemp(path.join(os.tmpdir(), 'durable-agent-faults-'));
  env = { address: inject('temporalAddress'), bundlePath: await writeWorkflowBundle(directory) };
});

afterAll(async () => {
  await rm(directory, { recursive: true, force: true });
});

/** The checks every scenario shares, each its own assertion so a failure names what broke. */
function expectSurvived(outcome: FaultOutcome): void {
  process.stderr.write(
    `[faults] ${outcome.scenario}: resumed ${outcome.resumeMs} ms after the fault` +
      `${outcome.retried.length ? ` (${outcome.retried.join(', ')})` : ''}; ${outcome.notes.join('; ')}\n`,
  );
  expect(outcome.status).toBe('completed');
  expect(outcome.answer).toBe(outcome.expectedAnswer);
  expect(outcome.wrongFiles).toEqual([]);
  expect(outcome.lost).toEqual([]);
  expect(outcome.duplicated).toEqual([]);
  expect(outcome.leftoverTemps).toEqual([]);
  expect(Number.isFinite(outcome.resumeMs)).toBe(true);
}

describe.concurrent('faults', { timeout: 240_000 }, () => {
  it('survives a worker SIGKILL during a model call: the call is made again on another worker', async () => {
    const outcome = await modelCallKill(env);
    expectSurvived(outcome);
    expect(outcome.retried).toContain('callModel attempt 2');
    // Noticed by the model call's 3 s heartbeat timeout, not by the 5 min start-to-close (on a loaded machine, within
    // twice the 5 s the soak's median is held to).
    expect(outcome.resumeMs).toBeLessThan(10_000);
  });

  it('survives a worker SIGKILL between the temp file and the rename: the edit lands once, no temp file left', async () => {
    const outcome = await fileWriteKill(env);
    expect(outcome.notes.join('\n')).toMatch(/temp files at the kill: \.notes\.txt\.agent-[0-9a-f]{12}\.tmp/);
    expectSurvived(outcome);
    expect(outcome.retried).toContain('EditFile attempt 2');
    // The paused write heartbeats until its worker dies: noticed in seconds, not at its 30 s start-to-close.
    expect(outcome.resumeMs).toBeLessThan(10_000);
  });

  it('survives a worker SIGKILL during a command: reported once, never re-run, no process left running', async () => {
    const outcome = await commandKill(env);
    expectSurvived(outcome);
    // Noticed by the command's 3 s heartbeat timeout, even though it prints nothing.
    expect(outcome.resumeMs).toBeLessThan(10_000);
    // The command's shell and its `sleep` must die with their worker.
    expect(outcome.orphans).toEqual([]);
  });

  it('survives a worker SIGKILL during a read-only MCP call: made again on the next worker', async () => {
    const outcome = await mcpCallKill(env);
    expectSurvived(outcome);
    expect(outcome.retried).toContain('callMcpTool attempt 2');
    expect(outcome.resumeMs).toBeLessThan(10_000);
  });

  it('survives the Temporal server killed and restarted on its SQLite file mid-run: nothing lost or done twice', async () => {
    expectSurvived(await serverRestart(env));
  });

  it('survives the model endpoint dropping the connection mid-stream: retried, the half-sent call never runs', async () => {
    const outcome = await streamDrop(env);
    expectSurvived(outcome);
    expect(outcome.retried).toEqual(['callModel attempt 2', 'callModel attempt 2']);
  });
});
