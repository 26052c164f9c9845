// The operator commands that act on runs, end to end: cancel, approve and deny, on terminated runs and on runs that
// continued as new, spawned as the real CLI against the shared test server, an in-process worker and the scripted
// model over OpenAI-compatible HTTP; and every operator command's help.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { findTemporalBinary } from '../../src/host/temporal-binary.js';
import type { RunHistory } from '../../src/history/history-reader.js';
import type { RunRow } from '../../src/cli/commands/list.js';
import { startScriptedModelServer } from '../../src/scripted-model/server.js';
import { cliSuite } from '../support/cli.js';
import { startScriptedRun, temporalAddress, workspaceFrom } from '../support/harness.js';
import { pendingApproval, waitFor } from '../support/wait.js';

const suite = cliSuite();
const { cli } = suite;

const usage = { prompt_tokens: 120, completion_tokens: 9 };

describe('cancel', () => {
  it('cancels a run stuck in a slow model turn: status cancelled, exit 0', async () => {
    const workspace = await workspaceFrom();
    const model = await startScriptedModelServer({ script: [{ content: 'too late', delay_ms: 60_000 }] });
    try {
      const started = await cli(['start', '--cwd', workspace, '--json', '--base-url', model.url, 'take your time']);
      expect(started.exitCode, started.stderr).toBe(4);
      const { workflowId } = JSON.parse(started.stdout) as { workflowId: string };
      await waitFor(async () => (model.requests.length > 0 ? true : undefined), 'the model call to start');

      // Nothing is pending on a running run: approving an unknown call is refused with the reason.
      const unknown = await cli(['approve', workflowId, 'call_nope']);
      expect(unknown.exitCode).toBe(1);
      expect(unknown.stderr).toMatch(
        /approve call_nope on .* was not accepted: .*(call_nope|no "approveToolCall" update handler)/,
      );

      const cancelled = await cli(['cancel', workflowId, '--json']);
      expect(cancelled.exitCode, cancelled.stderr).toBe(0);
      expect(JSON.parse(cancelled.stdout)).toMatchObject({ workflowId, status: 'cancelled' });
      expect((await suite.harness.client.workflow.getHandle(workflowId).describe()).status.name).toBe('CANCELLED');

      const again = await cli(['cancel', workflowId]);
      expect(again.exitCode, again.stderr).toBe(0);
      expect(again.stdout).toMatch(new RegExp(`^${workflowId} +cancelled`));

      const history = JSON.parse((await cli(['history', workflowId, '--json'])).stdout) as RunHistory;
      expect(history.status).toBe('cancelled');
      expect(history.steps[0]?.model.failures).toEqual(['cancelled']);

      const closed = await cli(['deny', workflowId, 'call_nope']);
      expect(closed.exitCode).toBe(1);
      expect(closed.stderr).toContain('the run has already finished');
    } finally {
      await model.close();
    }
    const missing = await cli(['cancel', 'agent-no-such-run']);
    expect(missing.exitCode).toBe(2);
    expect(missing.stderr).toContain('no run agent-no-such-run');
    expect((await cli(['cancel'])).exitCode).toBe(2);
  }, 120_000);
});

describe('approve and deny', () => {
  it('approve and deny answer pending budget approvals; a decided or unknown call is refused with the reason', async () => {
    const workspace = await workspaceFrom();
    // A 10-token budget: every step asks before its model call; an approval extends the budget by 10 tokens.
    const { handle, model } = await startScriptedRun(suite.harness, {
      workspace,
      script: [
        { usage, tool_calls: [{ id: 'look', name: 'Glob', arguments: { pattern: '*' } }] },
        { usage, content: 'never sent' },
      ],
      input: { askPolicy: 'wait', maxTokens: 10 },
    });
    const workflowId = handle.workflowId;
    try {
      await pendingApproval(suite.harness.client, workflowId, 'budget-step-1');
      const approved = await cli(['approve', workflowId, 'budget-step-1']);
      expect(approved.exitCode, approved.stderr).toBe(0);
      expect(approved.stdout).toBe(`approved budget-step-1 on ${workflowId}`);
      const twice = await cli(['approve', workflowId, 'budget-step-1', '--json']);
      expect(twice.exitCode).toBe(1);
      expect(twice.stdout).toBe('');
      expect(twice.stderr).toMatch(/approve budget-step-1 on .* was not accepted: .*budget-step-1/);

      await pendingApproval(suite.harness.client, workflowId, 'budget-step-2');
      const unknown = await cli(['deny', workflowId, 'call_nope']);
      expect(unknown.exitCode).toBe(1);
      expect(unknown.stderr).toMatch(/deny call_nope on .* was not accepted: .*call_nope/);
      const denied = await cli(['deny', workflowId, 'budget-step-2', '--reason', 'too expensive', '--json']);
      expect(denied.exitCode, denied.stderr).toBe(0);
      expect(JSON.parse(denied.stdout)).toEqual({ workflowId, tool_call_id: 'budget-step-2', decision: 'reject' });

      const failure = await handle.result().catch((error: unknown) => error);
      expect(String(((failure as Error).cause as Error | undefined)?.message)).toMatch(/not approved/);
      expect(model.requests).toHaveLength(1); // the denied step never called the model
    } finally {
      await model.close();
    }
  }, 120_000);

  it('approve (remembered) and deny decide pending Bash calls; deciding again is refused; history shows the outcomes', async () => {
    const workspace = await workspaceFrom();
    const model = await startScriptedModelServer({
      script: [
        { tool_calls: [{ id: 'push', name: 'Bash', arguments: { command: 'git push origin main' } }] },
        { tool_calls: [{ id: 'wipe', name: 'Bash', arguments: { command: 'rm -rf build' } }] },
        { content: 'done' },
      ],
    });
    try {
      const started = await cli([
        'start',
        '--cwd',
        workspace,
        '--json',
        '--ask',
        'wait',
        '--base-url',
        model.url,
        'push and clean',
      ]);
      expect(started.exitCode, started.stderr).toBe(4);
      const { workflowId } = JSON.parse(started.stdout) as { workflowId: string };

      await pendingApproval(suite.harness.client, workflowId, 'push');
      const approved = await cli(['approve', workflowId, 'push', '--remember', '--json']);
      expect(approved.exitCode, approved.stderr).toBe(0);
      expect(JSON.parse(approved.stdout)).toMatchObject({
        workflowId,
        tool_call_id: 'push',
        decision: 'approve',
        rememberedKey: 'git push',
      });
      const twice = await cli(['approve', workflowId, 'push']);
      expect(twice.exitCode).toBe(1);
      expect(twice.stderr).toMatch(/approve push on .* was not accepted: .*push/);

      await pendingApproval(suite.harness.client, workflowId, 'wipe');
      const denied = await cli(['deny', workflowId, 'wipe', '--reason', 'keep the build']);
      expect(denied.exitCode, denied.stderr).toBe(0);
      expect(denied.stdout).toMatch(/^denied wipe on /);

      const result = await suite.harness.client.workflow.getHandle(workflowId).result();
      expect(result).toMatchObject({ status: 'completed', answer: 'done' });
      const history = JSON.parse((await cli(['history', workflowId, '--json'])).stdout) as RunHistory;
      // The approved push ran (and failed or not: there is no repository); the denied wipe never became an activity.
      expect(history.steps[0]!.tools[0]).toMatchObject({ callId: 'push', tool: 'Bash', attempts: 1 });
      expect(history.steps[1]!.tools[0]).toMatchObject({
        callId: 'wipe',
        tool: 'Bash',
        status: 'error',
        errorCode: 'PERMISSION_DENIED',
        attempts: 0,
      });
    } finally {
      await model.close();
    }
    expect((await cli(['approve', 'only-one-arg'])).exitCode).toBe(2);
  }, 120_000);
});

describe('help', () => {
  it('prints help for every operator command', async () => {
    for (const command of ['approve', 'deny', 'cancel', 'list', 'history', 'replay']) {
      const help = await cli([command, '--help']);
      expect(help.exitCode, command).toBe(0);
      expect(help.stdout).toMatch(new RegExp(`^Usage: durable-agent ${command}`));
    }
  });
});

describe('a terminated run', () => {
  it('waits for approval in history, then is terminated with the operator’s reason in status, list and history', async () => {
    const { handle, model } = await startScriptedRun(suite.harness, {
      workspace: await workspaceFrom(),
      script: [{ tool_calls: [{ id: 'wipe', name: 'Bash', arguments: { command: 'rm -rf build' } }] }],
      input: { askPolicy: 'wait' },
    });
    try {
      await pendingApproval(suite.harness.client, handle.workflowId, 'wipe');
      // While it waits, `history` says so, and for what.
      const waiting = await cli(['history', handle.workflowId]);
      expect(waiting.exitCode, waiting.stderr).toBe(0);
      expect(waiting.stdout).toMatch(/ waiting_approval /);
      expect(waiting.stdout).toContain('waiting for approval: Bash rm -rf build — destructive');
      // The call's own line says so too.
      expect(waiting.stdout).toMatch(/Bash +rm -rf build +waiting_approval/);
      const waitingJson = JSON.parse((await cli(['history', handle.workflowId, '--json'])).stdout) as RunHistory;
      expect(waitingJson.steps[0]!.tools).toEqual([
        expect.objectContaining({ callId: 'wipe', status: 'waiting_approval', summary: 'Bash rm -rf build' }),
      ]);

      const { workflowId } = handle;
      // As an operator would: with the real temporal CLI.
      const temporal = await findTemporalBinary({ build: false });
      await execa(temporal.path, [
        'workflow',
        'terminate',
        '--address',
        temporalAddress(),
        '--workflow-id',
        workflowId,
        '--reason',
        'stuck on purpose',
      ]);

      const status = await cli(['status', workflowId, '--json']);
      expect(status.exitCode, status.stderr).toBe(0);
      expect(JSON.parse(status.stdout)).toMatchObject({ status: 'terminated', error: 'terminated: stuck on purpose' });

      const row = await waitFor(async () => {
        const listed = await cli(['list', '--status', 'terminated', '--json', '--limit', '200']);
        if (listed.exitCode !== 0) throw new Error(listed.stderr);
        return (JSON.parse(listed.stdout) as RunRow[]).find((candidate) => candidate.workflowId === workflowId);
      }, 'the terminated run in list --status terminated');
      expect(row.status).toBe('terminated');
      const cancelled = await cli(['list', '--status', 'cancelled', '--json', '--limit', '200']);
      expect((JSON.parse(cancelled.stdout) as RunRow[]).map((candidate) => candidate.workflowId)).not.toContain(
        workflowId,
      );

      const history = await cli(['history', workflowId]);
      expect(history.exitCode, history.stderr).toBe(0);
      expect(history.stdout).toContain('terminated: stuck on purpose');
      const json = JSON.parse((await cli(['history', workflowId, '--json'])).stdout) as RunHistory;
      expect(json).toMatchObject({ status: 'terminated', terminationReason: 'stuck on purpose' });
    } finally {
      await model.close();
    }
  });
});

describe('a task that continued as new', () => {
  it('names the handed-over run continued in status, history, list and watch, and lists the task once', async () => {
    const workspace = await workspaceFrom();
    await writeFile(join(workspace, 'notes.txt'), 'alpha\n');
    const read = { tool_calls: [{ name: 'ReadFile', arguments: { path: 'notes.txt' } }] };
    const { handle, model } = await startScriptedRun(suite.harness, {
      workspace,
      script: [read, read, read, { content: 'read three times' }],
      input: { continueAsNewEverySteps: 2 },
    });
    try {
      await handle.result();
      const { workflowId } = handle;
      const first = handle.firstExecutionRunId;
      const { runId: current } = await suite.harness.client.workflow.getHandle(workflowId).describe();
      expect(current).not.toBe(first);

      const status = JSON.parse((await cli(['status', workflowId, '--run-id', first, '--json'])).stdout) as {
        status: string;
        continuedAs?: string;
      };
      expect(status).toMatchObject({ status: 'continued', continuedAs: current });
      expect(
        (await suite.harness.client.workflow.getHandle(workflowId, first).describe()).searchAttributes.AgentStatus,
      ).toEqual(['continued']);

      const task = JSON.parse((await cli(['history', workflowId, '--json'])).stdout) as RunHistory;
      expect(task).toMatchObject({ status: 'completed', runIds: [first, current] });
      expect(task.steps.map((step) => step.step)).toEqual([1, 2, 3, 4]);
      const handedOver = JSON.parse(
        (await cli(['history', workflowId, '--run-id', first, '--json'])).stdout,
      ) as RunHistory;
      expect(handedOver.status).toBe('continued');

      const rows = await waitFor(async () => {
        const listed = JSON.parse((await cli(['list', '--json', '--limit', '200'])).stdout) as RunRow[];
        const mine = listed.filter((row) => row.workflowId === workflowId);
        return mine.length === 1 && mine[0]!.runId === current && mine[0]!.status === 'completed' ? mine : undefined;
      }, 'one row for the task, its current run');
      expect(rows).toHaveLength(1);
      const continued = await waitFor(async () => {
        const listed = JSON.parse(
          (await cli(['list', '--json', '--status', 'continued', '--limit', '200'])).stdout,
        ) as RunRow[];
        return listed.find((row) => row.workflowId === workflowId);
      }, 'the handed-over run in list --status continued');
      expect(continued).toMatchObject({ runId: first, status: 'continued' });

      const watched = await cli(['watch', workflowId]);
      expect(watched.exitCode, watched.stderr).toBe(0);
      expect(watched.stderr).toContain('↻ continued as new after step 2 (run 2 of the task)');
    } finally {
      await model.close();
    }
  });
});
