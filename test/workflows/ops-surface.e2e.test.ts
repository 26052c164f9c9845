// The ops surface end to end: search attributes the real `temporal` CLI can filter on, a cost that grows with every
// model call, a readable summary on every activity, and budgets that pause (or stop) a run before it overspends.
import { randomBytes } from 'node:crypto';
import { defaultPayloadConverter } from '@temporalio/common';
import type { WorkflowHandle } from '@temporalio/client';
import { WorkflowFailedError } from '@temporalio/client';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findTemporalBinary } from '../../src/host/temporal-binary.js';
import type { ScriptTurn } from '../../src/scripted-model/server.js';
import { approveToolCall, stateQuery } from '../../src/protocol/run-messages.js';
import type { Harness } from '../support/harness.js';
import { startHarness, startScriptedRun, temporalAddress, workspaceFrom } from '../support/harness.js';
import { waitFor } from '../support/wait.js';

let harness: Harness;
beforeAll(async () => {
  harness = await startHarness();
});
afterAll(async () => {
  await harness?.close();
});

const usage = { prompt_tokens: 20_000, completion_tokens: 1_000 };

function decode(payload: unknown): unknown {
  return payload ? defaultPayloadConverter.fromPayload(payload as never) : undefined;
}

async function historyEvents(handle: WorkflowHandle) {
  return (await handle.fetchHistory()).events ?? [];
}

describe('search attributes', () => {
  it('lets the temporal CLI find exactly the runs waiting for approval, by status and by pending approvals', async () => {
    const waiting: ScriptTurn[] = [
      { tool_calls: [{ name: 'Bash', arguments: { command: 'rm -rf build' } }] },
      { content: 'done' },
    ];
    const runs = await Promise.all([
      startScriptedRun(harness, { workspace: await workspaceFrom(), script: waiting, input: { askPolicy: 'wait' } }),
      startScriptedRun(harness, { workspace: await workspaceFrom(), script: waiting, input: { askPolicy: 'wait' } }),
      startScriptedRun(harness, {
        workspace: await workspaceFrom(),
        script: [{ content: 'nothing to ask' }],
        input: { askPolicy: 'wait' },
      }),
    ]);
    try {
      await runs[2].handle.result();
      const temporal = await findTemporalBinary({ build: false });
      const listWaiting = async (query: string) =>
        await waitFor(async () => {
          const listed = await execa(temporal.path, [
            'workflow',
            'list',
            '--address',
            temporalAddress(),
            '--query',
            query,
            '--output',
            'json',
          ]);
          const ids = (JSON.parse(listed.stdout || '[]') as { execution: { workflowId: string } }[])
            .map((run) => run.execution.workflowId)
            .sort();
          return ids.length === 2 ? ids : undefined;
        }, `two waiting runs in visibility for ${query}`);
      const expected = [runs[0].handle.workflowId, runs[1].handle.workflowId].sort();
      expect(await listWaiting(`AgentStatus="waiting_approval" AND TaskQueue="${harness.taskQueue}"`)).toEqual(
        expected,
      );
      expect(await listWaiting(`AgentPendingApprovals > 0 AND TaskQueue="${harness.taskQueue}"`)).toEqual(expected);

      // While it waits, the run's published state names the pending call and why, and so does the wait itself.
      const description = await runs[0].handle.describe();
      expect(description.searchAttributes.AgentPendingApprovals).toEqual([1]);
      expect(description.searchAttributes.AgentStatus).toEqual(['waiting_approval']);
      type Definition = { name: string; description?: string };
      const metadata = await runs[0].handle.query<{
        currentDetails?: string;
        definition?: {
          queryDefinitions?: Definition[];
          signalDefinitions?: Definition[];
          updateDefinitions?: Definition[];
        };
      }>('__temporal_workflow_metadata');
      // Every handler says what it is for, in the Web UI's Queries, Signals and Updates.
      const handlers = [
        ...(metadata.definition?.queryDefinitions ?? []),
        ...(metadata.definition?.signalDefinitions ?? []),
        ...(metadata.definition?.updateDefinitions ?? []),
      ].filter((handler) => !handler.name.startsWith('__'));
      expect(handlers.map((handler) => handler.name).sort()).toEqual(
        [
          'approveToolCall',
          'childReport',
          'interrupt',
          'interruptRun',
          'pause',
          'pauseRun',
          'resume',
          'resumeRun',
          'sendMessage',
          'state',
          'storeRoots',
          'taskSnapshot',
          'toolDecision',
          'transcript',
          'userMessage',
        ].sort(),
      );
      for (const handler of handlers) expect(handler.description, handler.name).toBeTruthy();
      expect(metadata.currentDetails).toMatch(/pending approvals\*\* \S+ — approval: Bash rm -rf build — destructive/);
      const timer = (await historyEvents(runs[0].handle)).find((event) => event.timerStartedEventAttributes);
      expect(decode(timer?.userMetadata?.summary)).toBe('approval: Bash rm -rf build — destructive');
    } finally {
      for (const run of runs.slice(0, 2)) await run.handle.terminate('test over').catch(() => undefined);
      for (const run of runs) await run.model.close();
    }
  });

  it('AgentCostUsd grows with each model call, and every activity carries a readable summary', async () => {
    const workspace = await workspaceFrom();
    const { handle, model } = await startScriptedRun(harness, {
      workspace,
      input: { selection: { model: 'gpt-4.1-mini' } },
      script: [
        {
          usage,
          tool_calls: [
            { name: 'Glob', arguments: { pattern: '*' } },
            { name: 'Grep', arguments: { pattern: 'x' } },
          ],
        },
        { usage, tool_calls: [{ name: 'Bash', arguments: { command: 'ls -la' } }] },
        { usage, content: 'done' },
      ],
    });
    try {
      const result = await handle.result();
      // 3 calls × (20,000 × $0.40 + 1,000 × $1.60) per 1M tokens.
      expect(result.usage.costUsd).toBeCloseTo((3 * (20_000 * 0.4 + 1_000 * 1.6)) / 1_000_000, 6);
      const events = await historyEvents(handle);
      const costs: number[] = [];
      let modelCallsCompleted = 0;
      const scheduledNames = new Map<string, string>();
      const costAfterModelCall: number[] = [];
      for (const event of events) {
        const scheduled = event.activityTaskScheduledEventAttributes;
        if (scheduled) {
          scheduledNames.set(String(event.eventId), scheduled.activityType?.name ?? '');
          const summary = decode(event.userMetadata?.summary);
          expect(typeof summary === 'string' && summary.length > 0, `summary of ${scheduled.activityType?.name}`).toBe(
            true,
          );
          if (scheduled.activityType?.name === 'callModel')
            expect(summary).toMatch(/^callModel step \d+ gpt-4\.1-mini \(\d+ messages, \d+ tools\)$/);
          if (scheduled.activityType?.name === 'Bash') expect(summary).toBe('Bash ls -la');
        }
        if (
          event.activityTaskCompletedEventAttributes &&
          scheduledNames.get(String(event.activityTaskCompletedEventAttributes.scheduledEventId)) === 'callModel'
        ) {
          modelCallsCompleted += 1;
        }
        const upserted =
          event.upsertWorkflowSearchAttributesEventAttributes?.searchAttributes?.indexedFields?.AgentCostUsd;
        if (upserted) {
          const cost = decode(upserted) as number;
          costs.push(cost);
          costAfterModelCall[modelCallsCompleted] = cost;
        }
      }
      for (let index = 1; index < costs.length; index++)
        expect(costs[index]!).toBeGreaterThanOrEqual(costs[index - 1]!);
      expect(costAfterModelCall[1]!).toBeGreaterThan(0);
      expect(costAfterModelCall[2]!).toBeGreaterThan(costAfterModelCall[1]!);
      expect(costAfterModelCall[3]!).toBeGreaterThan(costAfterModelCall[2]!);
      expect((await handle.describe()).searchAttributes.AgentCostUsd).toEqual([result.usage.costUsd]);
    } finally {
      await model.close();
    }
  });
});

/** The search-attribute upserts of a history, grouped by the workflow task that made them. */
function upsertsByTask(events: Awaited<ReturnType<typeof historyEvents>>): Map<string, Record<string, unknown>[]> {
  const byTask = new Map<string, Record<string, unknown>[]>();
  for (const event of events) {
    const upsert = event.upsertWorkflowSearchAttributesEventAttributes;
    if (!upsert) continue;
    const task = String(upsert.workflowTaskCompletedEventId);
    const fields = Object.fromEntries(
      Object.entries(upsert.searchAttributes?.indexedFields ?? {}).map(([key, value]) => [key, decode(value)]),
    );
    byTask.set(task, [...(byTask.get(task) ?? []), fields]);
  }
  return byTask;
}

/** A run whose one command (`rm -rf build`, call id `wipe`) waits for approval, once it waits. */
async function startWaitingRun() {
  const run = await startScriptedRun(harness, {
    workspace: await workspaceFrom(),
    script: [
      { tool_calls: [{ id: 'wipe', name: 'Bash', arguments: { command: 'rm -rf build' } }] },
      { content: 'done' },
    ],
    input: { askPolicy: 'wait' },
  });
  await waitFor(async () => (await run.handle.query(stateQuery)).pendingApprovals[0], 'the pending call');
  return run;
}

describe('stack trace', () => {
  it("answers the Web UI's stack trace query of a waiting run, five frames deep at most", async () => {
    const { handle, model } = await startWaitingRun();
    try {
      const stacks = (await handle.query<string>('__stack_trace')).split('\n\n').filter((stack) => stack.trim());
      expect(stacks.length).toBeGreaterThan(0);
      const frames = stacks.map((stack) => stack.split('\n').filter((line) => line.trim().startsWith('at ')));
      expect(
        frames.flat().some((line) => line.includes('src/workflows/')),
        stacks.join('\n\n'),
      ).toBe(true);
      for (const stack of frames) expect(stack.length).toBeLessThanOrEqual(5);
      await handle.executeUpdate(approveToolCall, { args: [{ tool_call_id: 'wipe', decision: 'reject' }] });
      await handle.result();
    } finally {
      await model.close();
    }
  });
});

describe('published state', () => {
  it('is written at most once per workflow task: the wait, the decision and its outcome, the ending', async () => {
    const { handle, model } = await startWaitingRun();
    try {
      await handle.executeUpdate(approveToolCall, { args: [{ tool_call_id: 'wipe', decision: 'approve' }] });
      await handle.result();
      const byTask = upsertsByTask(await historyEvents(handle));
      for (const [task, upserts] of byTask) expect(upserts, `workflow task ${task}`).toHaveLength(1);
      const published = [...byTask.values()].flat();
      expect(published).toContainEqual(
        expect.objectContaining({ AgentStatus: 'waiting_approval', AgentPendingApprovals: 1 }),
      );
      expect(published.at(-1)).toMatchObject({ AgentStatus: 'completed', AgentPendingApprovals: 0 });
    } finally {
      await model.close();
    }
  });

  it('names every ending the workflow sees in AgentStatus: a failed run is not left running', async () => {
    const { handle, model } = await startScriptedRun(harness, {
      workspace: await workspaceFrom(),
      script: [{ tool_calls: [{ name: 'Glob', arguments: { pattern: '*' } }] }],
      input: { maxSteps: 1 },
    });
    try {
      await expect(handle.result()).rejects.toThrow(WorkflowFailedError);
      expect((await handle.describe()).searchAttributes.AgentStatus).toEqual(['failed']);
      const query = `AgentStatus = 'running' AND WorkflowId = '${handle.workflowId}'`;
      expect(await harness.client.workflow.count(query)).toMatchObject({ count: 0 });
    } finally {
      await model.close();
    }
  });
});

describe('budgets', () => {
  // gpt-4.1-mini: 20,000 prompt + 1,000 completion tokens ≈ $0.0096 per call; a $0.015 budget fits one call, not two.
  const script: ScriptTurn[] = [
    { usage, tool_calls: [{ name: 'Glob', arguments: { pattern: '*' } }] },
    { usage, tool_calls: [{ name: 'Glob', arguments: { pattern: '*' } }] },
    { usage, content: 'finished within the extended budget' },
  ];

  it('pauses for approval before the step that would exceed the budget, and continues once approved', async () => {
    const { handle, model } = await startScriptedRun(harness, {
      workspace: await workspaceFrom(),
      script,
      input: { selection: { model: 'gpt-4.1-mini' }, budgetUsd: 0.015, askPolicy: 'wait' },
      workflowId: `agent-budget-${randomBytes(3).toString('hex')}`,
    });
    try {
      const pending = await waitFor(
        async () => (await handle.query(stateQuery)).pendingApprovals[0],
        'the budget approval',
      );
      expect(pending).toMatchObject({ callId: 'budget-step-2', tool: 'callModel', level: 'budget' });
      expect(pending.reason).toMatch(/cost budget of \$0\.0150 would be exceeded/);
      expect(model.requests).toHaveLength(1); // paused before the second model call, not after it
      const view = await handle.query(stateQuery);
      expect(view.status).toBe('waiting_approval');
      await handle.executeUpdate(approveToolCall, { args: [{ tool_call_id: 'budget-step-2', decision: 'approve' }] });
      const result = await handle.result();
      expect(result).toMatchObject({ status: 'completed', answer: 'finished within the extended budget' });
      expect(model.requests).toHaveLength(3);
    } finally {
      await model.close();
    }
  });

  it('with onBudget stop, ends the run as failed with a clear reason before overspending', async () => {
    const { handle, model } = await startScriptedRun(harness, {
      workspace: await workspaceFrom(),
      script,
      input: { selection: { model: 'gpt-4.1-mini' }, budgetUsd: 0.015, onBudget: 'stop' },
    });
    try {
      const failure = await handle.result().catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(WorkflowFailedError);
      expect(((failure as WorkflowFailedError).cause as Error).message).toMatch(
        /^Stopped before step 2: The cost budget of \$0\.0150 would be exceeded: \$0\.0096 spent/,
      );
      expect(model.requests).toHaveLength(1);
      expect((await handle.query(stateQuery)).status).toBe('failed');
    } finally {
      await model.close();
    }
  });
});
