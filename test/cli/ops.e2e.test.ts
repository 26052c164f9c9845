// The operator commands that read runs, end to end: history, list and replay, spawned as the real CLI against the
// shared test server, an in-process worker and the scripted model over OpenAI-compatible HTTP.
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { historyToJSON } from '@temporalio/common/lib/proto-utils.js';
import { describe, expect, it } from 'vitest';
import type { RunHistory } from '../../src/history/history-reader.js';
import type { RunRow } from '../../src/cli/commands/list.js';
import { listQuery } from '../../src/cli/commands/list.js';
import { startScriptedModelServer } from '../../src/scripted-model/server.js';
import type { ScriptTurn } from '../../src/scripted-model/server.js';
import { cliSuite } from '../support/cli.js';
import { workspaceFrom } from '../support/harness.js';
import { waitFor } from '../support/wait.js';

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
    for (const command of [
      ['history'],
      ['status'],
      ['watch'],
      ['status', '--json'],
      ['diff'],
      ['rewind', '--to-step', '1'],
      ['fork', '--from-step', '1'],
    ]) {
      const unknown = await cli([command[0]!, 'agent-no-such-run', ...command.slice(1)]);
      expect(unknown.exitCode, command.join(' ')).toBe(2);
      expect(unknown.stderr.trim()).toBe('error: no run agent-no-such-run');
    }
    const wrongRun = await cli(['history', 'agent-no-such-run', '--run-id', '01a25218-33c2-7874-a94d-6dbe7544cf5b']);
    expect(wrongRun.exitCode).toBe(2);
    expect(wrongRun.stderr.trim()).toBe(
      'error: no run agent-no-such-run with run id 01a25218-33c2-7874-a94d-6dbe7544cf5b',
    );
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
