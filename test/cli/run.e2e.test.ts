// The CLI contract, end to end: `durable-agent run --json` against a real server, an in-process worker, and an
// OpenAI-compatible endpoint given with --base-url.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startScriptedModelServer } from '../../src/scripted-model/server.js';
import { cliSuite } from '../support/cli.js';
import { workspaceFrom } from '../support/harness.js';

const suite = cliSuite();
const { cli } = suite;

describe('durable-agent CLI', () => {
  it('run --json prints the contract object and exits 0 when the model finishes', async () => {
    const workspace = await workspaceFrom();
    await writeFile(join(workspace, 'notes.txt'), 'alpha\nbeta\n');
    const model = await startScriptedModelServer({
      script: [
        { tool_calls: [{ id: 'r', name: 'ReadFile', arguments: { path: 'notes.txt' } }] },
        { content: 'notes.txt has 2 lines.' },
      ],
    });
    try {
      const run = await cli([
        'run',
        '--cwd',
        workspace,
        '--json',
        '--base-url',
        model.url,
        '--model',
        'm-1',
        'count the lines',
      ]);
      expect(run.exitCode, run.stderr).toBe(0);
      const lines = run.stdout.trim().split('\n');
      expect(lines).toHaveLength(1);
      const result = JSON.parse(lines[0]!);
      expect(Object.keys(result).sort()).toEqual([
        'answer',
        'runId',
        'status',
        'steps',
        'toolCalls',
        'usage',
        'workflowId',
      ]);
      expect(result).toMatchObject({ status: 'completed', answer: 'notes.txt has 2 lines.', steps: 2, toolCalls: 1 });
      expect(result.workflowId).toMatch(/^agent-count-the-lines-[0-9a-f]{8}$/);
      expect((model.requests[0] as { model: string }).model).toBe('m-1');
      // Progress goes to stderr: one line per step and per tool call, with the tool and its short arguments.
      expect(run.stderr).toMatch(/ReadFile\s+notes\.txt\s+success/);

      const status = await cli(['status', result.workflowId, '--json']);
      expect(status.exitCode, status.stderr).toBe(0);
      expect(JSON.parse(status.stdout)).toMatchObject({
        workflowId: result.workflowId,
        runId: result.runId,
        status: 'completed',
        step: 2,
        answer: 'notes.txt has 2 lines.',
        pendingApprovals: [],
      });
    } finally {
      await model.close();
    }
  });

  it('run --base-url without a model runs the one model the endpoint serves, and prices it as unknown', async () => {
    const workspace = await workspaceFrom();
    const model = await startScriptedModelServer({ script: [{ model: 'qwen2.5-coder', content: 'local answer' }] });
    try {
      const run = await cli(['run', '--cwd', workspace, '--json', '--base-url', model.url, 'answer locally']);
      expect(run.exitCode, run.stderr).toBe(0);
      expect(run.stderr).toContain(`model qwen2.5-coder  the one model ${model.url} serves`);
      expect((model.requests[0] as { model: string }).model).toBe('qwen2.5-coder');
      const result = JSON.parse(run.stdout);
      expect(result).toMatchObject({ status: 'completed', answer: 'local answer' });
      expect(result.usage).toMatchObject({ modelCalls: 1, costUsd: 0, unpricedModels: ['qwen2.5-coder'] });
    } finally {
      await model.close();
    }
  });

  it('run --base-url without a model is a usage error when the endpoint serves several, unless one is named', async () => {
    const workspace = await workspaceFrom();
    const model = await startScriptedModelServer({
      script: [
        { model: 'llama-3.1-8b', content: 'from llama' },
        { model: 'qwen2.5-coder', content: 'unused' },
      ],
    });
    try {
      const refused = await cli(['run', '--cwd', workspace, '--json', '--base-url', model.url, 'which model']);
      expect(refused.exitCode).toBe(2);
      expect(refused.stdout).toBe('');
      expect(refused.stderr).toContain(
        `--base-url needs --model (or DURABLE_AGENT_MODEL): ${model.url} serves 2 models: llama-3.1-8b, qwen2.5-coder`,
      );
      expect(refused.stderr).not.toMatch(/^\s+at /m);
      expect(model.requests).toHaveLength(0);

      const named = await cli(['run', '--cwd', workspace, '--json', '--base-url', model.url, 'which model'], {
        DURABLE_AGENT_MODEL: 'llama-3.1-8b',
      });
      expect(named.exitCode, named.stderr).toBe(0);
      expect((model.requests[0] as { model: string }).model).toBe('llama-3.1-8b');
      expect(JSON.parse(named.stdout)).toMatchObject({ status: 'completed', answer: 'from llama' });
    } finally {
      await model.close();
    }
  });

  it('exits 1 with status failed when the run fails, and 2 on usage errors', async () => {
    const workspace = await workspaceFrom();
    const model = await startScriptedModelServer({
      script: [{ error: { status: 401, body: { error: { message: 'bad key' } } } }],
    });
    try {
      const run = await cli(['run', '--cwd', workspace, '--json', '--base-url', model.url, 'fail please']);
      expect(run.exitCode).toBe(1);
      expect(JSON.parse(run.stdout)).toMatchObject({ status: 'failed', answer: null });
    } finally {
      await model.close();
    }
    expect((await cli(['run', '--cwd', '/definitely/not/here', 'x'])).exitCode).toBe(2);
    expect((await cli(['run'])).exitCode).toBe(2);
    expect((await cli(['run', '--max-steps', 'zero', 'x'])).exitCode).toBe(2);
    expect((await cli(['frobnicate'])).exitCode).toBe(2);
    // A --script that is no script, or no file, names the problem in one line, without a stack.
    const notScript = join(workspace, 'not-a-script.json');
    await writeFile(notScript, JSON.stringify({ turns: [] }));
    for (const [script, reason] of [
      [notScript, /^error: --script: .*not-a-script\.json: turn 1 is invalid/m],
      [join(workspace, 'missing.json'), /^error: --script: ENOENT/m],
    ] as const) {
      const run = await cli(['run', '--cwd', workspace, '--script', script, 'x']);
      expect(run.exitCode).toBe(2);
      expect(run.stderr).toMatch(reason);
      expect(run.stderr).not.toMatch(/\n\s+at /);
    }
  });

  it('start (= run --detach) returns at once with exit 4, and watch follows the run to its end', async () => {
    const workspace = await workspaceFrom();
    const model = await startScriptedModelServer({ script: [{ content: 'detached answer', delay_ms: 500 }] });
    try {
      const started = await cli(['start', '--cwd', workspace, '--json', '--base-url', model.url, 'detach me']);
      expect(started.exitCode, started.stderr).toBe(4);
      const object = JSON.parse(started.stdout);
      expect(object).toMatchObject({ status: 'running' });
      const watched = await cli(['watch', object.workflowId, '--json']);
      expect(watched.exitCode, watched.stderr).toBe(0);
      expect(JSON.parse(watched.stdout)).toMatchObject({
        workflowId: object.workflowId,
        status: 'completed',
        answer: 'detached answer',
      });
    } finally {
      await model.close();
    }
  });

  it('prints help for every command', async () => {
    for (const command of ['run', 'start', 'status', 'watch', 'worker', 'dev-server', 'demo']) {
      const help = await cli([command, '--help']);
      expect(help.exitCode, command).toBe(0);
      expect(help.stdout).toMatch(/^Usage: durable-agent/);
    }
  });
});
