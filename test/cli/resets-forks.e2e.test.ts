// Resets and forks end to end: a finished five-step run reset by the real `temporal` CLI, and forked by `durable-agent
// fork`, against the shared test server, an in-process worker and the scripted model over HTTP.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { defaultPayloadConverter } from '@temporalio/common';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import type { RunRow } from '../../src/cli/commands/list.js';
import type { HistoryEvent } from '../../src/history/events.js';
import type { RunHistory } from '../../src/history/history-reader.js';
import { findTemporalBinary } from '../../src/host/temporal-binary.js';
import { startScriptedModelServer } from '../../src/scripted-model/server.js';
import type { ScriptTurn } from '../../src/scripted-model/server.js';
import { cliSuite } from '../support/cli.js';
import { startScriptedRun, temporalAddress, workspaceFrom } from '../support/harness.js';
import { waitFor } from '../support/wait.js';

const suite = cliSuite();
const { cli } = suite;

/** Four steps that each read a file, then an answer. */
function fiveSteps(answer: string): ScriptTurn[] {
  return [
    ...[1, 2, 3, 4].map((step) => ({
      tool_calls: [{ id: `read${step}`, name: 'ReadFile', arguments: { path: `f${step}.txt` } }],
    })),
    { content: answer },
  ];
}

/** Writes the files the reads of `fiveSteps` read. */
async function fiveFiles(): Promise<string> {
  const workspace = await workspaceFrom();
  for (const step of [1, 2, 3, 4]) await writeFile(join(workspace, `f${step}.txt`), `file ${step}\n`);
  return workspace;
}

/** The id of the workflow task that scheduled `step`'s model call: resetting to it redoes the run from that step. */
function taskSchedulingStep(events: HistoryEvent[], step: number): number {
  const scheduled = events.find((event) => {
    const attributes = event.activityTaskScheduledEventAttributes;
    if (attributes?.activityType?.name !== 'callModel') return false;
    const input = defaultPayloadConverter.fromPayload<{ step?: number }>(attributes.input!.payloads![0]!);
    return input.step === step;
  });
  return Number(scheduled!.activityTaskScheduledEventAttributes!.workflowTaskCompletedEventId);
}

describe('a reset run', () => {
  it('reads in history as the chain that survived: the kept step, the reset point, the redone steps; list shows one row', async () => {
    const { handle, model } = await startScriptedRun(suite.harness, {
      workspace: await fiveFiles(),
      script: [...fiveSteps('first answer'), ...fiveSteps('second answer').slice(1)],
    });
    try {
      expect((await handle.result()).answer).toBe('first answer');
      const { workflowId } = handle;
      const baseRunId = handle.firstExecutionRunId;
      const resetTo = taskSchedulingStep((await handle.fetchHistory()).events ?? [], 2);
      const temporal = await findTemporalBinary({ build: false });
      await execa(temporal.path, [
        'workflow',
        'reset',
        '--address',
        temporalAddress(),
        '--workflow-id',
        workflowId,
        '--event-id',
        String(resetTo),
        '--reason',
        'redo from step 2',
      ]);
      const current = suite.harness.client.workflow.getHandle(workflowId);
      expect((await current.result()).answer).toBe('second answer');
      const { runId } = await current.describe();
      expect(runId).not.toBe(baseRunId);

      const json = await cli(['history', workflowId, '--json']);
      expect(json.exitCode, json.stderr).toBe(0);
      const history = JSON.parse(json.stdout) as RunHistory;
      expect(history).toMatchObject({ workflowId, runId, status: 'completed', runIds: [runId] });
      expect(history.resets).toEqual([
        { afterStep: 1, baseRunId, reason: expect.stringContaining('redo from step 2') },
      ]);
      expect(history.steps.map((step) => step.step)).toEqual([1, 2, 3, 4, 5]);
      // Step 1 was kept from the base run; steps 2-5 are the new run's own: each read once, no abandoned calls.
      expect(history.steps.flatMap((step) => step.tools.map((tool) => tool.callId))).toEqual([
        'read1',
        'read2',
        'read3',
        'read4',
      ]);
      const human = await cli(['history', workflowId]);
      expect(human.stdout).not.toContain('continued as new');
      const lines = human.stdout.split('\n');
      const resetLine = lines.findIndex((line) => line.startsWith('↺ reset after step 1: '));
      expect(resetLine).toBeGreaterThan(lines.findIndex((line) => line.startsWith('step 1 ')));
      expect(resetLine).toBeLessThan(lines.findIndex((line) => line.startsWith('step 2 ')));
      expect(lines[resetLine]).toContain(`--run-id ${baseRunId}`);

      // The abandoned run is still there on its own, and says how it ended.
      const base = JSON.parse(
        (await cli(['history', workflowId, '--run-id', baseRunId, '--json'])).stdout,
      ) as RunHistory;
      expect(base.steps.map((step) => step.step)).toEqual([1, 2, 3, 4, 5]);
      expect(base.resets).toBeUndefined();

      // One row for the task: its current run.
      const rows = await waitFor(async () => {
        const listed = await cli(['list', '--json', '--limit', '200']);
        const mine = (JSON.parse(listed.stdout) as RunRow[]).filter((row) => row.workflowId === workflowId);
        return mine.length === 1 && mine[0]!.runId === runId ? mine : undefined;
      }, 'one row for the reset task, naming its current run');
      expect(rows[0]).toMatchObject({ status: 'completed', step: 5 });
    } finally {
      await model.close();
    }
  }, 120_000);
});

describe('a fork', () => {
  it('goes on from step 2 of a finished five-step run with another model, with its own history and links', async () => {
    const workspace = await fiveFiles();
    const { handle, model } = await startScriptedRun(suite.harness, {
      workspace,
      script: fiveSteps('original answer'),
    });
    const stronger = await startScriptedModelServer({
      script: [
        {
          tool_calls: [
            { id: 'edit', name: 'EditFile', arguments: { path: 'f2.txt', old_string: 'file 2', new_string: 'two' } },
            { id: 'again', name: 'ReadFile', arguments: { path: 'f3.txt' } },
          ],
        },
        { content: 'fork answer' },
      ],
    });
    try {
      await handle.result();
      const { workflowId } = handle;
      // The workspace is not rewound: a file the original read, changed since, cannot be edited without a fresh read.
      await writeFile(join(workspace, 'f2.txt'), 'file 2, changed after the original read it\n');
      const forked = await cli([
        'fork',
        workflowId,
        '--from-step',
        '2',
        '--model',
        'stronger-model',
        '--base-url',
        stronger.url,
        '--task-append',
        'Check f3 once more.',
        '--json',
      ]);
      expect(forked.exitCode, forked.stderr).toBe(0);
      const result = JSON.parse(forked.stdout) as {
        workflowId: string;
        runId: string;
        status: string;
        answer: string;
        steps: number;
      };
      expect(result).toMatchObject({ status: 'completed', answer: 'fork answer', steps: 4 });
      expect(result.workflowId).toMatch(new RegExp(`^${workflowId}-fork-[0-9a-f]{8}$`));
      expect(forked.stderr).toContain('not as they were then');

      // The fork's first request is the original's transcript after step 2, then the appended message.
      const first = stronger.requests[0]!;
      expect(first.model).toBe('stronger-model');
      const text = JSON.stringify(first.messages);
      expect(text).toContain('file 1');
      expect(text).toContain('file 2');
      expect(text).not.toContain('file 3');
      expect(first.messages.at(-1)).toEqual({ role: 'user', content: 'Check f3 once more.' });

      const forkHistory = JSON.parse((await cli(['history', result.workflowId, '--json'])).stdout) as RunHistory;
      expect(forkHistory.forkedFrom).toEqual({ workflowId, runId: handle.firstExecutionRunId, step: 2 });
      expect(forkHistory.steps.map((step) => [step.step, step.model.model])).toEqual([
        [3, 'stronger-model'],
        [4, 'stronger-model'],
      ]);
      expect(forkHistory.steps[0]!.tools.map((tool) => [tool.callId, tool.status, tool.errorCode])).toEqual([
        ['edit', 'error', 'CONFLICT'],
        ['again', 'success', undefined],
      ]);
      const memo = (await suite.harness.client.workflow.getHandle(result.workflowId).describe()).memo;
      expect(memo).toMatchObject({ forkedFrom: { workflowId, step: 2 }, task: 'Do the scripted task.' });

      // The original names its fork.
      const original = await waitFor(async () => {
        const read = JSON.parse((await cli(['history', workflowId, '--json'])).stdout) as RunHistory;
        return read.forks?.length ? read : undefined;
      }, 'the fork in the original history');
      expect(original.forks).toEqual([{ workflowId: result.workflowId, step: 2 }]);
      expect((await cli(['history', workflowId])).stdout).toContain(`fork ${result.workflowId} after step 2`);

      // Steps with nothing after them cannot be forked from, and a bad step is a usage error.
      for (const bad of [['--from-step', '5'], ['--from-step', 'two'], []]) {
        const refused = await cli(['fork', workflowId, ...bad]);
        expect(refused.exitCode, bad.join(' ')).toBe(2);
        expect(refused.stderr).not.toMatch(/\n\s+at /);
      }
      expect((await cli(['fork', 'agent-no-such-run', '--from-step', '1'])).exitCode).toBe(2);
    } finally {
      await model.close();
      await stronger.close();
    }
  }, 180_000);
});
