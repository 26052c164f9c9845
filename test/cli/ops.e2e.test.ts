// The operator commands end to end: approve, deny, cancel, list, history and replay, spawned as the real CLI against
// the shared test server, an in-process worker and the scripted model over OpenAI-compatible HTTP.
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { historyToJSON } from '@temporalio/common/lib/proto-utils.js';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { findTemporalBinary } from '../../src/host/temporal-binary.js';
import type { RunHistory } from '../../src/history/history-reader.js';
import type { RunRow } from '../../src/cli/commands/list.js';
import { listQuery } from '../../src/cli/commands/list.js';
import { startScriptedModelServer } from '../../src/scripted-model/server.js';
import type { ScriptTurn } from '../../src/scripted-model/server.js';
import { cliSuite } from '../support/cli.js';
import { startScriptedRun, temporalAddress, workspaceFrom } from '../support/harness.js';
import { pendingApproval, waitFor } from '../support/wait.js';

const incompatibleWorkflows = fileURLToPath(new URL('../fixtures/replay/incompatible-workflows.ts', import.meta.url));

const suite = cliSuite();
const { cli } = suite;

const usage = { prompt_tokens: 120, completion_tokens: 9 };

// One finished multi-step run, started through the CLI, shared by the history, list and replay tests.
const multiStepScript: ScriptTurn[] = [
  // Step 1's first attempt fails with a retryable status; Temporal retries the model call.
  { error: { status: 503, body: { error: { message: 'scripted overload' } } } },
  {
    usage,
    tool_calls: [
      { id: 'read', name: 'ReadFile', arguments: { path: 'notes.txt' } },
      { id: 'find', name: 'Glob', arguments: { pattern: '*.txt' } },
    ],
  },
  {
    usage,
    tool_calls: [
      { id: 'bogus', name: 'Frobnicate', arguments: {} },
      { id: 'missing', name: 'ReadFile', arguments: { path: 'missing.txt' } },
    ],
  },
  { usage, content: 'notes.txt has two lines.' },
];

let finished: Promise<{ workflowId: string; runId: string }> | undefined;
function finishedRun(): Promise<{ workflowId: string; runId: string }> {
  finished ??= (async () => {
    const workspace = await workspaceFrom();
    await writeFile(join(workspace, 'notes.txt'), 'alpha\nbeta\n');
    const model = await startScriptedModelServer({ script: multiStepScript });
    try {
      const run = await cli([
        'run',
        '--cwd',
        workspace,
        '--json',
        '--ask',
        'deny',
        '--base-url',
        model.url,
        '--model',
        'scripted-model',
        'inspect the notes',
      ]);
      if (run.exitCode !== 0) throw new Error(`run failed (${run.exitCode}): ${run.stderr}`);
      const result = JSON.parse(run.stdout) as { workflowId: string; runId: string; status: string };
      if (result.status !== 'completed') throw new Error(`run ended ${result.status}: ${run.stdout}`);
      return result;
    } finally {
      await model.close();
    }
  })();
  return finished;
}

describe('history', () => {
  it('history --json reads a finished multi-step run step by step: retries, tools, statuses, error codes', async () => {
    const { workflowId, runId } = await finishedRun();
    const shown = await cli(['history', workflowId, '--json']);
    expect(shown.exitCode, shown.stderr).toBe(0);
    const history = JSON.parse(shown.stdout) as RunHistory;
    expect(history).toMatchObject({ workflowId, runId, status: 'completed', runIds: [runId] });
    expect(history.steps.map((step) => step.step)).toEqual([1, 2, 3]);

    const [first, second, third] = history.steps;
    expect(first!.model).toMatchObject({
      model: 'scripted-model',
      promptTokens: 120,
      completionTokens: 9,
      attempts: 2,
    });
    expect(first!.model.failures).toHaveLength(1);
    expect(first!.model.failures[0]).toMatch(/503|overload/);
    expect(first!.model.durationMs).toBeGreaterThanOrEqual(900); // the retry waits about a second
    expect(first!.tools).toEqual([
      expect.objectContaining({
        callId: 'read',
        tool: 'ReadFile',
        status: 'success',
        attempts: 1,
        summary: expect.stringMatching(/^ReadFile notes\.txt/),
      }),
      expect.objectContaining({
        callId: 'find',
        tool: 'Glob',
        status: 'success',
        attempts: 1,
        summary: expect.stringMatching(/^Glob /),
      }),
    ]);
    for (const tool of first!.tools) {
      expect(tool).not.toHaveProperty('errorCode');
      expect(tool.durationMs).toBeGreaterThanOrEqual(0);
    }

    expect(second!.model).toMatchObject({ attempts: 1, failures: [] });
    // The unknown tool never became an activity; its rejection is what the model was sent.
    expect(second!.tools).toEqual([
      {
        callId: 'bogus',
        tool: 'Frobnicate',
        summary: '',
        status: 'error',
        errorCode: expect.any(String),
        durationMs: 0,
        attempts: 0,
      },
      expect.objectContaining({
        callId: 'missing',
        tool: 'ReadFile',
        status: 'error',
        errorCode: 'NOT_FOUND',
        attempts: 1,
      }),
    ]);
    expect(third!.tools).toEqual([]);

    const human = await cli(['history', workflowId]);
    expect(human.exitCode, human.stderr).toBe(0);
    expect(human.stdout).toMatch(/step 1 +scripted-model +120 → 9 tokens .*\(2 attempts\)/);
    expect(human.stdout).toMatch(/ReadFile +missing\.txt.* +error NOT_FOUND/);
    expect(human.stdout).toMatch(/! .*(503|overload)/);

    // An id that names no run is a usage error in one line, whichever command reads it.
    for (const command of [['history'], ['status'], ['watch'], ['status', '--json']]) {
      const unknown = await cli([command[0]!, 'agent-no-such-run', ...command.slice(1)]);
      expect(unknown.exitCode, command.join(' ')).toBe(2);
      expect(unknown.stderr.trim()).toBe('error: no run agent-no-such-run');
    }
  }, 120_000);
});

describe('list', () => {
  it('list --json finds the finished run with its status, task and start time; bad filters are usage errors', async () => {
    const { workflowId, runId } = await finishedRun();
    // Visibility is eventually consistent: the run shows up shortly after it closes.
    const row = await waitFor(async () => {
      const listed = await cli(['list', '--json', '--limit', '200']);
      if (listed.exitCode !== 0) throw new Error(listed.stderr);
      return (JSON.parse(listed.stdout) as RunRow[]).find(
        (candidate) => candidate.workflowId === workflowId && candidate.closeTime,
      );
    }, 'the run in list');
    expect(row).toMatchObject({ workflowId, runId, status: 'completed', task: 'inspect the notes' });
    expect(Date.parse(row.startTime)).toBeLessThanOrEqual(Date.parse(row.closeTime!));

    const human = await cli(['list', '--limit', '200']);
    expect(human.exitCode, human.stderr).toBe(0);
    const lines = human.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^ID +STATUS +STEP +COST +STARTED +TASK$/);
    const line = lines.find((candidate) => candidate.startsWith(`${workflowId} `));
    expect(line).toMatch(/ completed .* ago +inspect the notes$/);
    // Columns line up: STATUS starts at the same offset in the header and in the row.
    expect(line!.indexOf(' completed') + 1).toBe(lines[0]!.indexOf('STATUS'));

    // Needs the AgentStatus search attribute upserted by the workflow (input.searchAttributes, set by `run` when the
    // namespace has the attributes registered).
    const completed = await waitFor(async () => {
      const listed = await cli(['list', '--json', '--status', 'completed', '--limit', '200']);
      const rows = JSON.parse(listed.stdout) as RunRow[];
      return rows.some((candidate) => candidate.workflowId === workflowId) ? rows : undefined;
    }, 'the run in list --status completed');
    expect(completed.every((candidate) => candidate.status === 'completed')).toBe(true);
    const running = await cli(['list', '--json', '--status', 'running', '--limit', '200']);
    expect((JSON.parse(running.stdout) as RunRow[]).some((candidate) => candidate.workflowId === workflowId)).toBe(
      false,
    );

    expect((await cli(['list', '--status', 'sleeping'])).exitCode).toBe(2);
    expect((await cli(['list', '--limit', '0'])).exitCode).toBe(2);
    expect((await cli(['list', '--min-cost', 'lots'])).exitCode).toBe(2);
  }, 120_000);

  it('builds the visibility query from the filters', () => {
    expect(listQuery({})).toBe(`WorkflowType = 'agentWorkflow'`);
    expect(listQuery({ status: 'waiting_approval', pendingApprovals: true, minCostUsd: 0.25 })).toBe(
      `WorkflowType = 'agentWorkflow' AND ExecutionStatus = 'Running' AND AgentStatus = 'waiting_approval' AND AgentPendingApprovals > 0 AND AgentCostUsd >= 0.25`,
    );
    // A terminated run never reports again, so endings match on the server's execution status.
    expect(listQuery({ status: 'terminated' })).toBe(
      `WorkflowType = 'agentWorkflow' AND ExecutionStatus = 'Terminated'`,
    );
  });
});

describe('replay', () => {
  it('replays a recorded history file with the current code, and names the diverging event for incompatible code', async () => {
    const { workflowId } = await finishedRun();
    const directory = await mkdtemp(join(tmpdir(), 'durable-agent-replay-'));
    const file = join(directory, 'history.json');
    await writeFile(file, historyToJSON(await suite.harness.client.workflow.getHandle(workflowId).fetchHistory()));

    const passing = await cli(['replay', file]);
    expect(passing.exitCode, passing.stderr).toBe(0);
    expect(passing.stdout).toMatch(
      new RegExp(`^deterministic: the current code replays \\d+ events of ${workflowId}$`),
    );

    const byId = await cli(['replay', workflowId, '--json']);
    expect(byId.exitCode, byId.stderr).toBe(0);
    expect(JSON.parse(byId.stdout)).toMatchObject({ workflowId, deterministic: true });

    // The fixture's agentWorkflow sleeps where the recorded run ran its first (local) activity.
    const history = await suite.harness.client.workflow.getHandle(workflowId).fetchHistory();
    const first = history.events!.find((event) => event.markerRecordedEventAttributes)!;
    const eventId = Number(first.eventId);
    const failing = await cli(['replay', file, '--workflows', incompatibleWorkflows]);
    expect(failing.exitCode).toBe(1);
    expect(failing.stderr).toContain(
      `not deterministic: the current code diverges from the history of ${workflowId} at event ${eventId} (MarkerRecorded local activity listFunctionTools)`,
    );
    expect(failing.stderr).toContain('Missing associated machine for LocalActivity(1)');
    expect(failing.stderr).not.toMatch(/WARN|temporalio_sdk_core/);

    const json = await cli(['replay', file, '--workflows', incompatibleWorkflows, '--json']);
    expect(json.exitCode).toBe(1);
    expect(JSON.parse(json.stdout)).toMatchObject({
      workflowId,
      deterministic: false,
      divergence: { eventId, event: 'MarkerRecorded local activity listFunctionTools' },
    });

    expect((await cli(['replay', join(directory, 'absent.json')])).exitCode).toBe(2);
  }, 120_000);
});

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
