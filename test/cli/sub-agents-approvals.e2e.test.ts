// Sub-agents' approvals end to end through the CLI: a child's call is approved and another child's rejected through
// the root (`approve ROOT task-1-0/CALL`, `deny`), the real `temporal workflow list --query "AgentPendingApprovals > 0"`
// finds the root while a child or a grandchild waits, and remembered grants follow the tree: a child inherits its
// parent's, a grant remembered in a child stays in that child.
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { findTemporalBinary } from '../../src/host/temporal-binary.js';
import type { ChatMessage } from '../../src/protocol/model.js';
import type { ScriptTurn } from '../../src/scripted-model/server.js';
import { startScriptedModelServer } from '../../src/scripted-model/server.js';
import { stateQuery } from '../../src/protocol/run-messages.js';
import { cliSuite, startDetached } from '../support/cli.js';
import { temporalAddress, toolResult, workspaceFrom } from '../support/harness.js';
import { pendingApproval, waitFor } from '../support/wait.js';

const suite = cliSuite();
const { cli } = suite;

/** A POST with curl: network_write, so `--ask wait` asks (key `curl HOST`); it fails fast, offline or not. */
function post(id: string, host: string, forTask: string): ScriptTurn {
  return {
    for_task: forTask,
    tool_calls: [
      { id, name: 'Bash', arguments: { command: `curl -s -X POST --max-time 1 https://${host}/x || true` } },
    ],
  };
}

function task(id: string, prompt: string, profile = 'code-edit'): ScriptTurn {
  return {
    for_task: 'Parent task',
    tool_calls: [{ id, name: 'Task', arguments: { description: prompt.slice(0, 20), prompt, profile } }],
  };
}

/** The root runs whose pending approvals visibility counts, by the real temporal CLI. */
async function listedWaiting(workflowId: string): Promise<boolean> {
  const temporal = await findTemporalBinary({ build: false });
  const listed = await execa(
    temporal.path,
    [
      'workflow',
      'list',
      '--address',
      temporalAddress(),
      '--query',
      `AgentPendingApprovals > 0 AND WorkflowId = '${workflowId}'`,
      '--output',
      'json',
    ],
    { reject: false },
  );
  if (listed.exitCode !== 0) throw new Error(listed.stderr);
  return listed.stdout.includes(workflowId);
}

/** Every tool result the model was sent, by call id, across all the agents' requests. */
function allToolResults(requests: { messages: ChatMessage[] }[], callId: string) {
  const request = requests.findLast((candidate) =>
    candidate.messages.some((message) => message.role === 'tool' && message.tool_call_id === callId),
  );
  if (!request) throw new Error(`no request carried the result of ${callId}`);
  return toolResult(request.messages, callId);
}

describe('sub-agent approvals at the root', () => {
  it('decides children’s and a grandchild’s calls on the root, and keeps remembered grants where the policy says', async () => {
    const workspace = await workspaceFrom();
    const model = await startScriptedModelServer({
      script: [
        // A child asks; approved with --remember at the root, the grant is the child's: its second call with the
        // same key runs without asking.
        task('t1', 'Child task one: post twice.'),
        post('post1', 'example.com', 'Child task one'),
        post('post2', 'example.com', 'Child task one'),
        { for_task: 'Child task one', content: 'one posted' },
        // The next child does not have it (a child's grant stays in the child): it asks; rejected at the root.
        task('t2', 'Child task two: post once.'),
        post('post3', 'example.com', 'Child task two'),
        { for_task: 'Child task two', content: 'two was refused' },
        // The root asks for the same key itself and remembers it: its later children inherit the grant.
        post('post4', 'example.com', 'Parent task'),
        task('t3', 'Child task three: delegate.'),
        {
          for_task: 'Child task three',
          tool_calls: [
            {
              id: 'g1',
              name: 'Task',
              arguments: { description: 'grandchild', prompt: 'Grandchild task: post.', profile: 'code-edit' },
            },
          ],
        },
        post('post5', 'example.com', 'Grandchild task'),
        post('post6', 'example.org', 'Grandchild task'),
        { for_task: 'Grandchild task', content: 'grandchild posted' },
        { for_task: 'Child task three', content: 'three delegated' },
        { for_task: 'Parent task', content: 'all decided' },
      ],
    });
    try {
      const args = [
        '--cwd',
        workspace,
        '--ask',
        'wait',
        '--base-url',
        model.url,
        'Parent task: post through children.',
      ];
      const workflowId = await startDetached(cli, args);
      const { client } = suite.harness;

      expect(await pendingApproval(client, workflowId, 'task-1-0/post1')).toMatchObject({
        tool: 'Bash',
        level: 'network_write',
        key: 'curl example.com',
      });
      const status = JSON.parse((await cli(['status', workflowId, '--json'])).stdout);
      expect(status.pendingApprovals).toEqual([expect.objectContaining({ callId: 'task-1-0/post1' })]);
      await waitFor(async () => ((await listedWaiting(workflowId)) ? true : undefined), 'the root listed as waiting');
      const listed = await cli(['list', '--pending-approvals', '--json', '--limit', '200']);
      expect(
        (JSON.parse(listed.stdout) as { workflowId: string; pendingApprovals: number | null }[]).find(
          (row) => row.workflowId === workflowId,
        ),
      ).toMatchObject({ pendingApprovals: 1 });
      // The child's own id is not how the root names it.
      expect((await cli(['approve', workflowId, 'post1'])).exitCode).not.toBe(0);
      const approved = await cli(['approve', workflowId, 'task-1-0/post1', '--remember']);
      expect(approved.exitCode, approved.stderr).toBe(0);

      // Alike at the same step as post1 (call index, command): still a call of its own, asked for again.
      expect(await pendingApproval(client, workflowId, 'task-2-0/post3')).toMatchObject({
        identity: expect.stringMatching(/^task-2-0\//),
      });
      const denied = await cli(['deny', workflowId, 'task-2-0/post3', '--reason', 'not from this one']);
      expect(denied.exitCode, denied.stderr).toBe(0);

      await pendingApproval(client, workflowId, 'post4');
      expect((await cli(['approve', workflowId, 'post4', '--remember'])).exitCode).toBe(0);

      // A grandchild (depth 2) waits: the root shows it, and visibility finds the root by it.
      const deep = await pendingApproval(client, workflowId, 'task-4-0/task-1-0/post6');
      expect(deep).toMatchObject({ key: 'curl example.org' });
      await waitFor(async () => ((await listedWaiting(workflowId)) ? true : undefined), 'the root listed as waiting');
      const view = await client.workflow.getHandle(workflowId).query(stateQuery);
      expect(view.pendingApprovals.map((item) => item.callId)).toEqual(['task-4-0/task-1-0/post6']);
      expect((await cli(['approve', workflowId, 'task-4-0/task-1-0/post6'])).exitCode).toBe(0);

      const result = await client.workflow.getHandle(workflowId).result();
      expect(result).toMatchObject({ status: 'completed', answer: 'all decided' });
      expect(await listedWaiting(workflowId)).toBe(false);
      const requests = model.requests as { messages: ChatMessage[] }[];
      for (const id of ['post1', 'post2', 'post4', 'post5', 'post6'])
        expect(allToolResults(requests, id).error?.code, id).not.toBe('PERMISSION_DENIED');
      expect(allToolResults(requests, 'post3').error).toMatchObject({ code: 'PERMISSION_DENIED' });
      expect(allToolResults(requests, 'post3').text).toMatch(/not approved/);
      expect(toolResult(requests.at(-1)!.messages, 't3').text).toBe('three delegated');
      expect(model.failures).toEqual([]);
    } finally {
      await model.close();
    }
  }, 180_000);
});
