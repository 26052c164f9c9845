// Human approvals end to end (`--ask wait`): a network_write call approved through the CLI with --remember, a second
// call with the same key running without asking, a destructive call denied through the CLI (its target survives), an
// unknown call id refused, and an approval resolved by a Signal sent with the real `temporal` CLI.
import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { findTemporalBinary } from '../../src/host/temporal-binary.js';
import type { ChatMessage } from '../../src/protocol/model.js';
import { startScriptedModelServer } from '../../src/scripted-model/server.js';
import { cliSuite } from '../support/cli.js';
import { temporalAddress, toolResult, workspaceFrom } from '../support/harness.js';
import { pendingApproval, waitFor } from '../support/wait.js';

const suite = cliSuite();
const { cli } = suite;

describe('--ask wait', () => {
  it('asks once per key for network_write, every time for destructive, and takes CLI updates and temporal CLI signals', async () => {
    const workspace = await workspaceFrom();
    await mkdir(join(workspace, 'build'));
    await writeFile(join(workspace, 'build', 'keep.txt'), 'precious\n');
    await writeFile(join(workspace, 'old.log'), 'stale\n');
    const model = await startScriptedModelServer({
      script: [
        { tool_calls: [{ id: 'push1', name: 'Bash', arguments: { command: 'git push origin main' } }] },
        { tool_calls: [{ id: 'push2', name: 'Bash', arguments: { command: 'git push origin release' } }] },
        { tool_calls: [{ id: 'wipe', name: 'Bash', arguments: { command: 'rm -rf build' } }] },
        { tool_calls: [{ id: 'tidy', name: 'Bash', arguments: { command: 'rm old.log' } }] },
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
        'push and tidy',
      ]);
      expect(started.exitCode, started.stderr).toBe(4);
      const { workflowId } = JSON.parse(started.stdout) as { workflowId: string };

      expect(await pendingApproval(suite.harness.client, workflowId, 'push1')).toMatchObject({
        tool: 'Bash',
        level: 'network_write',
        key: 'git push',
        command: 'git push origin main',
      });
      const status = JSON.parse((await cli(['status', workflowId, '--json'])).stdout);
      expect(status).toMatchObject({
        status: 'waiting_approval',
        pendingApprovals: [{ callId: 'push1', tool: 'Bash', level: 'network_write' }],
      });
      // Visibility knows it waits: `list --pending-approvals` finds it (AgentPendingApprovals > 0).
      const row = await waitFor(async () => {
        const listed = await cli(['list', '--pending-approvals', '--json', '--limit', '200']);
        if (listed.exitCode !== 0) throw new Error(listed.stderr);
        return (JSON.parse(listed.stdout) as { workflowId: string; pendingApprovals: number | null }[]).find(
          (candidate) => candidate.workflowId === workflowId,
        );
      }, 'the waiting run in list --pending-approvals');
      expect(row).toMatchObject({ status: 'waiting_approval', pendingApprovals: 1 });
      const unknown = await cli(['approve', workflowId, 'call_that_does_not_exist']);
      expect(unknown.exitCode).not.toBe(0);
      expect(unknown.stderr).toMatch(/call_that_does_not_exist/);
      const approved = await cli(['approve', workflowId, 'push1', '--remember']);
      expect(approved.exitCode, approved.stderr).toBe(0);

      // push2 has the same approval key: it runs without a pending approval; the destructive wipe asks again.
      expect(await pendingApproval(suite.harness.client, workflowId, 'wipe')).toMatchObject({
        level: 'destructive',
        command: 'rm -rf build',
      });
      const denied = await cli(['deny', workflowId, 'wipe', '--reason', 'keep the build']);
      expect(denied.exitCode, denied.stderr).toBe(0);

      await pendingApproval(suite.harness.client, workflowId, 'tidy');
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
          'toolDecision',
          '--input',
          JSON.stringify({ tool_call_id: 'tidy', decision: 'approve' }),
        ],
        { reject: false },
      );
      expect(signal.exitCode, signal.stderr).toBe(0);

      const result = await suite.harness.client.workflow.getHandle(workflowId).result();
      expect(result).toMatchObject({ status: 'completed', answer: 'done' });
      const messages = (model.requests.at(-1) as { messages: ChatMessage[] }).messages;
      expect(toolResult(messages, 'push1').error?.code).not.toBe('PERMISSION_DENIED');
      expect(toolResult(messages, 'push2').error?.code).not.toBe('PERMISSION_DENIED');
      expect(toolResult(messages, 'wipe').error).toMatchObject({
        code: 'PERMISSION_DENIED',
        details: { permission: { level: 'destructive' } },
      });
      expect(toolResult(messages, 'wipe').text).toMatch(/requires confirmation .* and was not approved/);
      expect(toolResult(messages, 'tidy').status).toBe('success');
      expect(await readFile(join(workspace, 'build', 'keep.txt'), 'utf8')).toBe('precious\n');
      await expect(stat(join(workspace, 'old.log'))).rejects.toThrow();

      // `watch` tells who decided each call and why, the tool's own time apart from the wait, and ends like `run`.
      const watched = await cli(['watch', workflowId]);
      expect(watched.exitCode, watched.stderr).toBe(0);
      expect(watched.stderr).toMatch(/Bash +approved by \S+@\S+ +waited/);
      expect(watched.stderr).toMatch(/Bash +rejected by \S+@\S+: keep the build +waited/);
      expect(watched.stderr).toMatch(/Bash +approved by an operator +waited/);
      expect(watched.stderr).toMatch(/completed · 5 steps · 4 tool calls · \d+ tokens/);
      expect(watched.stdout.trim()).toBe('done');
    } finally {
      await model.close();
    }
  }, 120_000);
});
