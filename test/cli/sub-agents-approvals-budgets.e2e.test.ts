// Sub-agents' budgets end to end through the CLI: a token budget split across two parallel children stops the one that
// overspends its share (`--on-budget stop`) while the other finishes; with `--on-budget ask` each child's budget
// question waits at the root on its own (`task-1-0/budget-step-2`), and deciding one leaves the other pending. The
// root's cost search attribute includes a child's spending while the child still runs, and the root's cost is the sum
// of every run's own ledger, retried model calls included. The root's history does not grow with a child's work.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { WorkflowHandle } from '@temporalio/client';
import { describe, expect, it } from 'vitest';
import type { AgentStateView } from '../../src/protocol/run-messages.js';
import { stateQuery } from '../../src/protocol/run-messages.js';
import type { UsageLedger } from '../../src/protocol/run-report.js';
import type { ScriptTurn } from '../../src/scripted-model/server.js';
import { startScriptedModelServer } from '../../src/scripted-model/server.js';
import { cliSuite, startDetached } from '../support/cli.js';
import { chainHistories, eventBytes } from '../support/history-size.js';
import { toolResult, workspaceFrom } from '../support/harness.js';
import { pendingApproval, waitFor } from '../support/wait.js';

const suite = cliSuite();
const { cli } = suite;

const MAX_TOKENS = 100_000;

/** Two read-only children in one step, each given 40% of what is left (alpha: 39 600 tokens, beta: 23 760). */
const split: ScriptTurn = {
  for_task: 'Parent task',
  usage: { prompt_tokens: 999, completion_tokens: 1 },
  tool_calls: ['alpha', 'beta'].map((name) => ({
    id: name,
    name: 'Task',
    arguments: { description: `read for ${name}`, prompt: `Child task ${name}: read README.md.`, budget_share: 0.4 },
  })),
};

function read(name: string, completionTokens: number): ScriptTurn {
  return {
    for_task: `Child task ${name}`,
    usage: { prompt_tokens: 100, completion_tokens: completionTokens },
    tool_calls: [{ name: 'ReadFile', arguments: { path: 'README.md' } }],
  };
}

function answer(forTask: string, content: string): ScriptTurn {
  return { for_task: forTask, usage: { prompt_tokens: 100, completion_tokens: 10 }, content };
}

async function startRun(modelUrl: string, workspace: string, onBudget: 'ask' | 'stop', env: Record<string, string>) {
  const args = [
    '--cwd',
    workspace,
    '--ask',
    'wait',
    '--max-tokens',
    String(MAX_TOKENS),
    '--on-budget',
    onBudget,
    '--base-url',
    modelUrl,
  ];
  return await startDetached((given) => cli(given, env), [...args, 'Parent task: split the reading.']);
}

function view(handle: WorkflowHandle): Promise<AgentStateView> {
  return handle.query(stateQuery);
}

async function costAttribute(handle: WorkflowHandle): Promise<number> {
  const described = await handle.describe();
  return Number((described.searchAttributes as Record<string, unknown[]>).AgentCostUsd?.[0] ?? 0);
}

function sum(ledgers: UsageLedger[], key: 'costUsd' | 'totalTokens' | 'modelCalls' | 'retriedCalls'): number {
  return ledgers.reduce((total, ledger) => total + ledger[key], 0);
}

async function pricedWorkspace(): Promise<{ workspace: string; env: Record<string, string> }> {
  const workspace = await workspaceFrom();
  await writeFile(join(workspace, 'README.md'), 'hello\n');
  // Prices for the scripted model (USD per 1M tokens), so the cost figures are not all zero.
  const prices = join(workspace, '..', `prices-${Date.now()}.json`);
  await writeFile(prices, JSON.stringify({ scripted: { input: 1, output: 2 } }));
  return { workspace, env: { DURABLE_AGENT_PRICES: prices } };
}

describe('sub-agent budgets', () => {
  it('stops the child that overspends its share; the other finishes', async () => {
    const { workspace, env } = await pricedWorkspace();
    const model = await startScriptedModelServer({
      script: [
        split,
        read('alpha', 45_000),
        read('beta', 10),
        answer('Child task beta', 'beta read it'),
        answer('Parent task', 'split done'),
      ],
    });
    try {
      const workflowId = await startRun(model.url, workspace, 'stop', env);
      const handle = suite.harness.client.workflow.getHandle(workflowId);
      const result = await handle.result();
      expect(result).toMatchObject({ status: 'completed', answer: 'split done' });
      const last = model.requests.at(-1)!.messages;
      expect(toolResult(last, 'alpha').error).toMatchObject({ code: 'EXECUTION_ERROR' });
      expect(toolResult(last, 'alpha').text).toMatch(/token limit of 39600 would be exceeded/);
      expect(toolResult(last, 'beta')).toMatchObject({ status: 'success', text: 'beta read it' });
      const children = (await view(handle)).children!;
      expect(children.map((child) => [child.segment, child.status, child.maxTokens])).toEqual([
        ['task-1-0', 'failed', 39_600],
        ['task-1-1', 'completed', 23_760],
      ]);
      expect(model.failures).toEqual([]);
    } finally {
      await model.close();
    }
  }, 120_000);

  it('asks at the root for each child on its own, and adds up every ledger, retries included', async () => {
    const { workspace, env } = await pricedWorkspace();
    const model = await startScriptedModelServer({
      script: [
        split,
        read('alpha', 45_000),
        read('beta', 30_000),
        // A failed model call of alpha's, made again by the activity's retry.
        { for_task: 'Child task alpha', error: { status: 500 } },
        answer('Child task alpha', 'alpha read it'),
        answer('Parent task', 'split done'),
      ],
    });
    try {
      const workflowId = await startRun(model.url, workspace, 'ask', env);
      const { client } = suite.harness;
      const handle = client.workflow.getHandle(workflowId);
      const alpha = await pendingApproval(client, workflowId, 'task-1-0/budget-step-2');
      expect(alpha).toMatchObject({ level: 'budget', reason: expect.stringMatching(/token limit of 39600/) });
      await pendingApproval(client, workflowId, 'task-1-1/budget-step-2');
      // Both children are still running; the root's cost already holds what they spent.
      const running = await view(handle);
      const rootOwn = running.usage.costUsd;
      expect(running.totalUsage!.costUsd).toBeGreaterThan(rootOwn);
      await waitFor(
        async () => ((await costAttribute(handle)) > rootOwn ? true : undefined),
        "the children's spending in the root's AgentCostUsd",
      );

      const approved = await cli(['approve', workflowId, 'task-1-0/budget-step-2']);
      expect(approved.exitCode, approved.stderr).toBe(0);
      await waitFor(async () => {
        const children = (await view(handle)).children!;
        return children[0]!.status === 'completed' ? children : undefined;
      }, 'alpha to finish');
      // Deciding alpha's question left beta's waiting.
      expect((await view(handle)).pendingApprovals.map((item) => item.callId)).toEqual(['task-1-1/budget-step-2']);
      const denied = await cli(['deny', workflowId, 'task-1-1/budget-step-2']);
      expect(denied.exitCode, denied.stderr).toBe(0);

      const result = await handle.result();
      expect(result).toMatchObject({ status: 'completed', answer: 'split done' });
      const last = model.requests.at(-1)!.messages;
      expect(toolResult(last, 'alpha')).toMatchObject({ status: 'success', text: 'alpha read it' });
      expect(toolResult(last, 'beta').error).toMatchObject({ code: 'EXECUTION_ERROR' });
      expect(toolResult(last, 'beta').text).toMatch(/not approved/);

      // Each run's own ledger, read from the run itself.
      const own = await Promise.all(
        [workflowId, `${workflowId}/task-1-0`, `${workflowId}/task-1-1`].map(
          async (id) => (await view(client.workflow.getHandle(id))).usage,
        ),
      );
      expect(own[1]!.retriedCalls).toBe(1);
      const total = result.totalUsage!;
      for (const key of ['totalTokens', 'modelCalls', 'retriedCalls'] as const)
        expect(total[key], key).toBe(sum(own, key));
      expect(total.costUsd).toBeCloseTo(sum(own, 'costUsd'), 12);
      expect(total.costUsd).toBeGreaterThan(own[0]!.costUsd);
      await waitFor(
        async () => (Math.abs((await costAttribute(handle)) - total.costUsd) < 1e-12 ? true : undefined),
        "the root's AgentCostUsd to be the tree's cost",
      );
      expect(model.failures).toEqual([]);
    } finally {
      await model.close();
    }
  }, 120_000);
});

describe("the root's history", () => {
  /** The root's history of a run whose one child takes `steps` steps, `delayMs` each. */
  async function rootHistory(steps: number, delayMs: number) {
    const workspace = await workspaceFrom();
    await writeFile(join(workspace, 'README.md'), 'hello\n');
    const model = await startScriptedModelServer({
      script: [
        {
          for_task: 'Parent task',
          tool_calls: [
            { id: 'c', name: 'Task', arguments: { description: 'read', prompt: 'Child task: read README.md.' } },
          ],
        },
        ...Array.from({ length: steps - 1 }, () => ({
          for_task: 'Child task',
          delay_ms: delayMs,
          tool_calls: [{ name: 'ReadFile', arguments: { path: 'README.md' } }],
        })),
        { for_task: 'Child task', content: 'read it' },
        { for_task: 'Parent task', content: 'done' },
      ],
    });
    try {
      const started = await cli(['start', '--cwd', workspace, '--json', '--base-url', model.url, 'Parent task: read.']);
      expect(started.exitCode, started.stderr).toBe(4);
      const { workflowId } = JSON.parse(started.stdout) as { workflowId: string };
      const result = await suite.harness.client.workflow.getHandle(workflowId).result();
      expect(result.status).toBe('completed');
      const [events] = await chainHistories(suite.harness.client, workflowId);
      const [childEvents] = await chainHistories(suite.harness.client, `${workflowId}/task-1-0`);
      // The root's events from its child's start to its end: what the child's length can add. The run's first two
      // activities (the tool listings) complete in one workflow task or in two, as they happen to land, before that.
      const kinds = events!.map((event) => Object.keys(event).find((key) => key.endsWith('EventAttributes')));
      const childRan = events!.slice(
        kinds.indexOf('childWorkflowExecutionStartedEventAttributes'),
        kinds.indexOf('childWorkflowExecutionCompletedEventAttributes'),
      );
      const bytesOf = (some: typeof events) => some!.reduce((total, event) => total + eventBytes(event), 0);
      return {
        events: events!.length,
        whileChildRan: childRan.length,
        bytesWhileChildRan: bytesOf(childRan),
        bytes: bytesOf(events),
        childEvents: childEvents!.length,
      };
    } finally {
      await model.close();
    }
  }

  // A child's spending reaches its root 2 s after it starts, then 4 s later, 8 s later…: a child working 15 times as
  // long (≈ 8 s) adds two reports (a Signal and a workflow task each: 4 events), where one every 2 s added four.
  it('grows by a report or two, not with its child’s steps, when its child takes 30 steps instead of 2', async () => {
    const short = await rootHistory(2, 0);
    const long = await rootHistory(30, 250);
    console.log(`root history: child of 2 steps ${JSON.stringify(short)}, of 30 steps ${JSON.stringify(long)}`);
    expect(long.childEvents).toBeGreaterThan(short.childEvents * 5);
    expect(short.whileChildRan).toBeGreaterThan(0);
    expect(long.whileChildRan - short.whileChildRan).toBeLessThanOrEqual(2 * 4);
    expect(long.bytesWhileChildRan - short.bytesWhileChildRan).toBeLessThan(short.bytes * 0.15);
  }, 180_000);
});
