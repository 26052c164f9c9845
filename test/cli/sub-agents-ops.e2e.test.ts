// Operators see a run's sub-agents through the real CLI: `status` of the root lists its children and its tree's
// spending and of a child says whose it is; `list` draws children under their parent and finds the root while a child
// waits; `approve`/`deny` decide a child's calls on the root (or given the child's id); `watch` announces them;
// `history` nests each child's steps under its Task call with the child's wall time; `replay` and `fork` take the tree.
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ChatMessage } from '../../src/protocol/model.js';
import { startScriptedModelServer } from '../../src/scripted-model/server.js';
import { cliSuite, startDetached } from '../support/cli.js';
import { toolResult, workspaceFrom } from '../support/harness.js';
import { pendingApproval, waitFor } from '../support/wait.js';

const suite = cliSuite();
const { cli } = suite;

/** The parent delegates twice: alpha reads (and takes a second), beta pushes and wipes, each asking first. */
const SCRIPT = [
  {
    for_task: 'Parent task',
    tool_calls: [
      {
        id: 't0',
        name: 'Task',
        arguments: { description: 'look at alpha', prompt: 'Child task alpha: read README.md.' },
      },
      {
        id: 't1',
        name: 'Task',
        arguments: { description: 'push beta', prompt: 'Child task beta: push.', profile: 'code-edit' },
      },
    ],
  },
  { for_task: 'Child task alpha', tool_calls: [{ id: 'r1', name: 'ReadFile', arguments: { path: 'README.md' } }] },
  { for_task: 'Child task alpha', content: 'alpha found it', delay_ms: 1_000 },
  {
    for_task: 'Child task beta',
    tool_calls: [{ id: 'w1', name: 'Bash', arguments: { command: 'git push origin main' } }],
  },
  {
    for_task: 'Child task beta',
    tool_calls: [{ id: 'w2', name: 'Bash', arguments: { command: 'rm -rf build' } }],
  },
  { for_task: 'Child task beta', content: 'beta done' },
  { for_task: 'Parent task', content: 'all done' },
  // The fork after step 1 (served after the original's last turn): one more sub-agent, under the fork's id.
  {
    for_task: 'Parent task',
    tool_calls: [{ id: 't2', name: 'Task', arguments: { description: 'look at gamma', prompt: 'Child task gamma.' } }],
  },
  { for_task: 'Child task gamma', content: 'gamma seen' },
  { for_task: 'Parent task', content: 'forked done' },
];

interface StatusJson {
  status: string;
  pendingApprovals: { callId: string }[];
  usage: { totalTokens: number };
  totalUsage?: { totalTokens: number; modelCalls: number };
  parent?: { rootWorkflowId: string; parentWorkflowId: string; path: string };
  children: { segment: string; workflowId: string; status: string; description: string | null; step: number | null }[];
}

describe('sub-agents seen by operators', () => {
  it('status, list, approve, deny, watch and history show and decide a run tree', async () => {
    const workspace = await workspaceFrom();
    await writeFile(join(workspace, 'README.md'), 'hello\n');
    await mkdir(join(workspace, 'build'));
    await writeFile(join(workspace, 'build', 'keep.txt'), 'precious\n');
    const model = await startScriptedModelServer({ script: SCRIPT });
    try {
      const root = await startDetached(cli, [
        '--cwd',
        workspace,
        '--ask',
        'wait',
        '--base-url',
        model.url,
        'Parent task: split it.',
      ]);
      const alpha = `${root}/task-1-0`;
      const beta = `${root}/task-1-1`;
      // Followed from the start: it must announce the child's approvals too.
      const watching = cli(['watch', root]);

      // The child's approval is listed on the root by the id the root decides it by.
      await pendingApproval(suite.harness.client, root, 'task-1-1/w1');
      const rootStatus = JSON.parse((await cli(['status', root, '--json'])).stdout) as StatusJson;
      expect(rootStatus.pendingApprovals.map((approval) => approval.callId)).toEqual(['task-1-1/w1']);
      expect(
        rootStatus.children.map(({ segment, workflowId, description }) => [segment, workflowId, description]),
      ).toEqual([
        ['task-1-0', alpha, 'look at alpha'],
        ['task-1-1', beta, 'push beta'],
      ]);
      expect(rootStatus.children[1]!.status).toBe('waiting_approval');
      expect(rootStatus.totalUsage!.totalTokens).toBeGreaterThan(rootStatus.usage.totalTokens);
      const rootText = await cli(['status', root]);
      expect(rootText.stdout).toMatch(/sub-agents {2}2 \(/);
      expect(rootText.stdout).toMatch(/task-1-1 +waiting_approval +step 1 .*1 pending +push beta/);
      expect(rootText.stdout).toMatch(/tree {8}\d+ tokens, \$[\d.]+ \(\d+ model calls\): this run and its sub-agents/);

      // A child by its id: whose sub-agent it is, and that its approvals are decided on the root.
      const childStatus = await cli(['status', beta, '--json']);
      expect(childStatus.exitCode, childStatus.stderr).toBe(0);
      expect(JSON.parse(childStatus.stdout)).toMatchObject({
        workflowId: beta,
        status: 'waiting_approval',
        parent: { rootWorkflowId: root, parentWorkflowId: root, path: 'task-1-1' },
      });
      const childText = await cli(['status', beta]);
      expect(childText.stdout).toContain(`sub-agent   of ${root} (as task-1-1)`);
      expect(childText.stdout).toContain(`durable-agent approve ${root} task-1-1/CALL`);

      // `list --pending-approvals` finds the root while its child waits; children are drawn under the root.
      const rows = await waitFor(async () => {
        const listed = await cli(['list', '--pending-approvals', '--json', '--limit', '200']);
        const parsed = JSON.parse(listed.stdout) as { workflowId: string; parentWorkflowId: string | null }[];
        return parsed.some((row) => row.workflowId === root) ? parsed : undefined;
      }, 'the root in list --pending-approvals');
      expect(rows.find((row) => row.workflowId === beta)?.parentWorkflowId).toBe(root);
      expect(rows.find((row) => row.workflowId === root)?.parentWorkflowId).toBeNull();
      const listText = (await cli(['list', '--limit', '200'])).stdout.split('\n');
      const rootLine = listText.findIndex((line) => line.startsWith(`${root} `));
      expect(rootLine).toBeGreaterThan(0);
      expect(listText.slice(rootLine + 1, rootLine + 3)).toEqual([
        expect.stringMatching(/^ └ task-1-0 +(completed|running) .*look at alpha$/),
        expect.stringMatching(/^ └ task-1-1 +waiting_approval .*push beta$/),
      ]);

      // Decided on the root by its qualified id, then (the second) through the child's own id.
      const approved = await cli(['approve', root, 'task-1-1/w1']);
      expect(approved.exitCode, approved.stderr).toBe(0);
      await pendingApproval(suite.harness.client, root, 'task-1-1/w2');
      const denied = await cli(['deny', beta, 'w2', '--reason', 'not the release']);
      expect(denied.exitCode, denied.stderr).toBe(0);
      expect(denied.stderr).toContain(`deciding task-1-1/w2 on its root ${root}`);

      const result = await suite.harness.client.workflow.getHandle(root).result();
      expect(result).toMatchObject({ status: 'completed', answer: 'all done' });
      const childMessages = (
        model.requests.find((request) =>
          (request as { messages: ChatMessage[] }).messages.some((message) => message.content === 'beta done'),
        ) ?? (model.requests.at(-2) as { messages: ChatMessage[] })
      ).messages;
      expect(toolResult(childMessages, 'w2').error?.code).toBe('PERMISSION_DENIED');
      expect(await readFile(join(workspace, 'build', 'keep.txt'), 'utf8')).toBe('precious\n');

      const watched = await watching;
      expect(watched.exitCode, watched.stderr).toBe(0);
      expect(watched.stderr).toMatch(
        /approval needed task-1-1\/w1 +Bash git push origin main .*asked by sub-agent task-1-1/,
      );

      // Closed: the root's children come from the visibility store, the child's parent from the server's record.
      const closed = await waitFor(async () => {
        const status = JSON.parse((await cli(['status', root, '--json'])).stdout) as StatusJson;
        return status.children.length === 2 && status.children.every((child) => child.status === 'completed')
          ? status
          : undefined;
      }, "the closed root's children");
      expect(closed.children.map((child) => [child.segment, child.description])).toEqual([
        ['task-1-0', 'look at alpha'],
        ['task-1-1', 'push beta'],
      ]);
      expect(closed.totalUsage!.modelCalls).toBe(2 + 2 + 3);
      expect(JSON.parse((await cli(['status', alpha, '--json'])).stdout)).toMatchObject({
        status: 'completed',
        parent: { rootWorkflowId: root, path: 'task-1-0' },
      });

      // history: each child's steps under its Task call, its wall time the call's.
      const history = await cli(['history', root]);
      expect(history.exitCode, history.stderr).toBe(0);
      const lines = history.stdout.split('\n');
      const alphaCall = lines.findIndex((line) => /^ {2}Task +look at alpha +success/.test(line));
      expect(lines[alphaCall]).toMatch(/success +[1-9]\.\ds$/);
      expect(lines[alphaCall + 1]).toContain(`↳ ${alpha}  completed`);
      expect(lines.slice(alphaCall + 2, alphaCall + 6).join('\n')).toMatch(
        / {6}step 1 [^\n]*\n {8}ReadFile +README\.md/,
      );
      expect(history.stdout).toMatch(new RegExp(` {4}↳ ${beta.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}  completed`));
      const shallow = await cli(['history', root, '--depth', '0']);
      expect(shallow.stdout).not.toContain('ReadFile');
      expect(shallow.stdout).toContain(`↳ ${alpha}  completed`);
      const nested = JSON.parse((await cli(['history', root, '--json'])).stdout) as {
        steps: { tools: { durationMs: number; subAgent?: { workflowId: string; history?: { steps: unknown[] } } }[] }[];
      };
      const [alphaTool, betaTool] = nested.steps[0]!.tools;
      expect(alphaTool!.subAgent).toMatchObject({ workflowId: alpha, history: { steps: [{}, {}] } });
      expect(alphaTool!.durationMs).toBeGreaterThanOrEqual(1_000);
      expect(betaTool!.subAgent!.history!.steps).toHaveLength(3);

      // replay: the root's history (its children as their starts and results), and a child's by its id.
      for (const id of [root, alpha]) {
        const replayed = await cli(['replay', id]);
        expect(replayed.exitCode, replayed.stderr).toBe(0);
        expect(replayed.stdout).toContain(`deterministic: the current code replays`);
      }
      // fork: from the state after step 1 (both children's results in it); the fork's own child is under its id.
      const forked = await cli(['fork', root, '--from-step', '1', '--json', '--base-url', model.url]);
      expect(forked.exitCode, forked.stderr).toBe(0);
      const fork = JSON.parse(forked.stdout) as { workflowId: string; answer: string };
      expect(fork.answer).toBe('forked done');
      const forkStatus = JSON.parse((await cli(['status', fork.workflowId, '--json'])).stdout) as StatusJson;
      expect(forkStatus.children.map((child) => child.workflowId)).toContain(`${fork.workflowId}/task-2-0`);
    } finally {
      await model.close();
    }
  }, 120_000);
});
