import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { mkdir, mkdtemp, readFile, readdir, realpath, rm, symlink, utimes, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ExecutorContext, ToolExecutor } from '../../src/activities/executors/types.js';
import { isFinalAttempt, runTool } from '../../src/activities/run-tool.js';
import { pruneSpillDirectories, writeSpillFile } from '../../src/activities/spill.js';
import type { ToolActivityInput, ToolActivityResult } from '../../src/protocol/tool-activity.js';
import { MAX_TOOL_RESULT_BYTES, renderEnvelope } from '../../src/core/output-budget.js';
import { envelopeSize, okEnvelope } from '../../src/protocol/envelope.js';

let workspace: string;

beforeEach(async () => {
  workspace = await mkdtemp(path.join(os.tmpdir(), 'run-tool-'));
});

afterEach(async () => {
  await rm(workspace, { recursive: true, force: true });
});

function request(overrides: Partial<ToolActivityInput> = {}): ToolActivityInput {
  return {
    taskId: 'task-1',
    turn: 2,
    index: 1,
    callId: 'call_7',
    workspace,
    input: { path: 'a.txt' },
    paramsInput: { path: 'a.txt' },
    ...overrides,
  };
}

const throwing =
  (error: unknown): ToolExecutor =>
  async () => {
    throw error;
  };

describe('runTool context', () => {
  it('passes the real root, spill folder and an abbreviated base context; empty repair lists are omitted', async () => {
    const link = `${workspace}-link`;
    await symlink(workspace, link);
    let seen: ExecutorContext | undefined;
    const result = await runTool(
      'ReadFile',
      async (context) => {
        seen = context;
        return { envelope: okEnvelope({ text: 'ok', context: context.context }) };
      },
      request({ workspace: link, paramsInput: { content: 'z'.repeat(1_500) }, repairs: [], ignoredParams: [] }),
    );
    await rm(link);
    const real = await realpath(workspace);
    expect(seen?.root).toBe(real);
    expect(seen?.outputDir).toBe(path.join(real, '.agent', 'tool-output', 'task-1'));
    expect(seen?.attempt).toBe(1);
    expect(seen?.activityKey).toBe('task-1/2/1/call_7');
    expect(result.envelope.context).toEqual({
      tool_call_id: 'call_7',
      cwd: '.',
      params_input: { content: `${'z'.repeat(1_000)}…(+500 chars)` },
    });
  });

  it('includes repairs and ignored params when there are some', async () => {
    const result = await runTool(
      'ReadFile',
      async (context) => ({ envelope: okEnvelope({ text: 'ok', context: context.context }) }),
      request({
        repairs: [{ stage: 'alias', kind: 'alias', from: 'file_path', to: 'path' }],
        ignoredParams: ['verbose'],
      }),
    );
    expect(result.envelope.context.repairs).toEqual([{ stage: 'alias', kind: 'alias', from: 'file_path', to: 'path' }]);
    expect(result.envelope.context.ignored_params).toEqual(['verbose']);
  });

  it('takes attempt, activity key, heartbeat and cancellation from the Temporal activity context', async () => {
    const environment = new MockActivityEnvironment({
      attempt: 2,
      activityId: '7',
      workflowExecution: { workflowId: 'agent-x', runId: 'run-1' },
    });
    const heartbeats: unknown[] = [];
    environment.on('heartbeat', (details: unknown) => heartbeats.push(details));
    let seen: ExecutorContext | undefined;
    await environment.run(() =>
      runTool(
        'Glob',
        async (context) => {
          seen = context;
          context.heartbeat('tick');
          return { envelope: okEnvelope({ text: 'ok', context: context.context }) };
        },
        request(),
      ),
    );
    expect(seen?.attempt).toBe(2);
    expect(seen?.activityKey).toBe('agent-x/run-1/7');
    expect(seen?.signal).toBe(environment.context.cancellationSignal);
    expect(heartbeats).toEqual(['tick']);
  });
});

describe('runTool exceptions', () => {
  it('rethrows on a non-final attempt so Temporal retries', async () => {
    await expect(
      runTool('ReadFile', throwing(new Error('EIO: disk hiccup')), request(), { maximumAttempts: 3, attempt: 1 }),
    ).rejects.toThrow('EIO: disk hiccup');
  });

  it('returns INTERNAL_ERROR on the final attempt', async () => {
    const result = await runTool('ReadFile', throwing(new Error('EIO: disk hiccup')), request({ maximumAttempts: 3 }), {
      attempt: 3,
    });
    expect(result.envelope.status).toBe('error');
    expect(result.envelope.error?.code).toBe('INTERNAL_ERROR');
    expect(result.envelope.text).toBe("Tool 'ReadFile' failed: EIO: disk hiccup");
    expect(result.envelope.error?.message).toBe(result.envelope.text);
    expect(result.envelope.context.tool_call_id).toBe('call_7');
    expect(result.readStateUpdate).toBeUndefined();
  });

  it('reads the attempt limit from the request and the attempt from the activity info', async () => {
    const environment = new MockActivityEnvironment({ attempt: 1 });
    await expect(
      environment.run(() => runTool('Grep', throwing(new Error('flaky')), request({ maximumAttempts: 3 }))),
    ).rejects.toThrow('flaky');
    const last = new MockActivityEnvironment({ attempt: 3 });
    const result: ToolActivityResult = await last.run(() =>
      runTool('Grep', throwing(new Error('flaky')), request({ maximumAttempts: 3 })),
    );
    expect(result.envelope.error?.code).toBe('INTERNAL_ERROR');
  });

  it('falls back to the retry policy the server reports', async () => {
    const environment = new MockActivityEnvironment({ attempt: 1, retryPolicy: { maximumAttempts: 2 } });
    await expect(environment.run(() => runTool('Grep', throwing(new Error('flaky')), request()))).rejects.toThrow(
      'flaky',
    );
  });

  it('treats a non-retryable failure, or an unknown attempt limit, as final', async () => {
    const nonRetryable = ApplicationFailure.create({ message: 'bad state', nonRetryable: true });
    const first = await runTool('WriteFile', throwing(nonRetryable), request(), { maximumAttempts: 3, attempt: 1 });
    expect(first.envelope.text).toBe("Tool 'WriteFile' failed: bad state");
    const unknown = await runTool('WriteFile', throwing('not an Error'), request());
    expect(unknown.envelope.text).toBe("Tool 'WriteFile' failed: not an Error");
    expect(isFinalAttempt(new Error('x'), 1, 0)).toBe(true);
    expect(isFinalAttempt(new Error('x'), 2, 3)).toBe(false);
  });

  it('lets a CancelledFailure propagate, even on the final attempt', async () => {
    const cancelled = new CancelledFailure('activity cancelled');
    await expect(runTool('Bash', throwing(cancelled), request({ maximumAttempts: 1 }))).rejects.toBe(cancelled);
  });

  it('propagates Temporal cancellation when the executor fails after the activity was cancelled', async () => {
    const environment = new MockActivityEnvironment({ attempt: 1 });
    const running = environment.run(() =>
      runTool(
        'Glob',
        (context) =>
          new Promise((_, reject) => {
            const fail = (): void => reject(new Error('aborted by signal'));
            if (context.signal.aborted) fail();
            context.signal.addEventListener('abort', fail);
          }),
        request({ maximumAttempts: 1 }),
      ),
    );
    environment.cancel();
    await expect(running).rejects.toBeInstanceOf(CancelledFailure);
  });
});

describe('runTool post-processing', () => {
  it('normalises an empty result', async () => {
    const result = await runTool(
      'Custom',
      async (context) => ({ envelope: okEnvelope({ text: '', context: context.context }) }),
      request(),
    );
    expect(result.envelope.status).toBe('success');
    expect(result.envelope.text).toBe('Custom completed with no output.');
  });

  it('keeps a result under the limit as it is, with its read-state update', async () => {
    const update = { key: 'a.txt', entry: null };
    const result = await runTool(
      'ReadFile',
      async (context) => ({
        envelope: okEnvelope({ text: 'ok', data: { content: 'a'.repeat(40_000) }, context: context.context }),
        readStateUpdate: update,
      }),
      request(),
    );
    expect(result.envelope.data.content).toBe('a'.repeat(40_000));
    expect(result.readStateUpdate).toEqual(update);
  });

  it('spills a result over MAX_TOOL_RESULT_BYTES in full and returns the compressed envelope', async () => {
    const lines = Array.from({ length: 5_000 }, (_, index) => `match ${index}: ${'q'.repeat(20)}`).join('\n');
    let raw = okEnvelope({
      text: 'Found 5000 matches.',
      data: { content: lines },
      context: { tool_call_id: '', cwd: '.', params_input: {} },
    });
    const result = await runTool(
      'Grep',
      async (context) => {
        raw = { ...raw, context: context.context };
        return { envelope: raw };
      },
      request({ callId: 'call:7/x' }),
    );
    expect(envelopeSize(raw)).toBeGreaterThan(MAX_TOOL_RESULT_BYTES);
    const envelope = result.envelope;
    expect(envelope.status).toBe('partial');
    expect(envelopeSize(envelope)).toBeLessThan(6_000);
    const truncation = envelope.data.truncation as { reason: string; full_output_path: string };
    expect(truncation.reason).toBe('single_tool_budget');
    expect(truncation.full_output_path).toBe('.agent/tool-output/task-1/t2_1_Grep_call_7_x.result.txt');
    expect(await readFile(path.join(workspace, truncation.full_output_path), 'utf8')).toBe(renderEnvelope(raw));
  });

  it('honours AGENT_MAX_TOOL_RESULT_BYTES', async () => {
    const executor: ToolExecutor = async (context) => ({
      envelope: okEnvelope({ text: 'ok', data: { content: 'b'.repeat(5_000) }, context: context.context }),
    });
    process.env.AGENT_MAX_TOOL_RESULT_BYTES = '2000';
    try {
      const result = await runTool('ReadFile', executor, request());
      expect(result.envelope.data.truncated).toBe(true);
    } finally {
      delete process.env.AGENT_MAX_TOOL_RESULT_BYTES;
    }
    expect((await runTool('ReadFile', executor, request())).envelope.data.truncated).toBeUndefined();
  });
});

describe('spill files', () => {
  const target = (root: string, taskId: string) =>
    ({ root, taskId, turn: 4, index: 0, toolName: 'ReadFile', callId: 'call_1', suffix: 'result' }) as const;

  it('writeSpillFile writes the content under the task folder and returns the relative path', async () => {
    const written = await writeSpillFile(target(await realpath(workspace), 'task-9'), 'all of it\n');
    expect(written).toBe('.agent/tool-output/task-9/t4_0_ReadFile_call_1.result.txt');
    expect(await readFile(path.join(workspace, written), 'utf8')).toBe('all of it\n');
  });

  it('refuses to write through a symlink that leaves the workspace', async () => {
    const outside = await mkdtemp(path.join(os.tmpdir(), 'run-tool-outside-'));
    try {
      await symlink(outside, path.join(workspace, '.agent'));
      const real = await realpath(workspace);
      await expect(writeSpillFile(target(real, 't'), 'x')).rejects.toThrow(/'\.agent' is a symbolic link/);
      expect(await readdir(outside)).toEqual([]);
    } finally {
      await rm(outside, { recursive: true, force: true });
    }
  });

  it("a task's first spill file deletes other tasks' folders past retention; later spills prune nothing", async () => {
    const root = path.join(workspace, '.agent', 'tool-output');
    for (const name of ['old-task', 'recent-task']) {
      await mkdir(path.join(root, name), { recursive: true });
      await writeFile(path.join(root, name, 'f.txt'), name);
    }
    const eightDaysAgo = new Date(Date.now() - 8 * 24 * 60 * 60 * 1000);
    await utimes(path.join(root, 'old-task'), eightDaysAgo, eightDaysAgo);
    const real = await realpath(workspace);
    await writeSpillFile(target(real, 'new-task'), 'first');
    expect((await readdir(root)).sort()).toEqual(['new-task', 'recent-task']);

    // A folder that ages past retention while this task already has its own is left to the next task's first spill.
    await utimes(path.join(root, 'recent-task'), eightDaysAgo, eightDaysAgo);
    await writeSpillFile({ ...target(real, 'new-task'), index: 1 }, 'second');
    expect((await readdir(root)).sort()).toEqual(['new-task', 'recent-task']);
    await writeSpillFile(target(real, 'next-task'), 'third');
    expect((await readdir(root)).sort()).toEqual(['new-task', 'next-task']);
  });

  it('pruneSpillDirectories removes task folders older than the retention period only', async () => {
    const root = path.join(workspace, '.agent', 'tool-output');
    for (const name of ['old-task', 'new-task', 'current-task']) {
      await mkdir(path.join(root, name), { recursive: true });
      await writeFile(path.join(root, name, 'f.txt'), name);
    }
    const eightDaysAgo = new Date(Date.now() - 8 * 24 * 60 * 60 * 1000);
    await utimes(path.join(root, 'old-task'), eightDaysAgo, eightDaysAgo);
    await utimes(path.join(root, 'current-task'), eightDaysAgo, eightDaysAgo);
    const removed = await pruneSpillDirectories(workspace, undefined, { keepTaskId: 'current-task' });
    expect(removed).toEqual(['old-task']);
    expect((await readdir(root)).sort()).toEqual(['current-task', 'new-task']);
  });

  it('pruneSpillDirectories is a no-op without a spill folder', async () => {
    expect(await pruneSpillDirectories(workspace)).toEqual([]);
  });
});
