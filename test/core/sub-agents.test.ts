// The sub-agent rules without a server: what a child is allotted of its parent's budget, what a tree spent, reports
// applied in order, and which child an approval id is forwarded to.
import { describe, expect, it } from 'vitest';
import type { PendingApproval } from '../../src/protocol/approval.js';
import type { UsageLedger } from '../../src/protocol/run-report.js';
import type { ChildReport } from '../../src/protocol/sub-agents.js';
import type { AgentInput, AgentState } from '../../src/core/state.js';
import { emptyUsage, initialState } from '../../src/core/state.js';
import type { TaskArguments } from '../../src/core/sub-agents/child-start.js';
import { childStart } from '../../src/core/sub-agents/child-start.js';
import {
  applyChildReport,
  childEnded,
  childOfApproval,
  childStarted,
  descendantApprovals,
  runningChildren,
} from '../../src/core/sub-agents/children.js';
import { addLedgers, treeUsage } from '../../src/core/sub-agents/ledger.js';
import { DEFAULT_SUB_AGENT_LIMITS } from '../../src/core/sub-agents/limits.js';

const ROOT = 'agent-root';

function usage(costUsd: number, totalTokens: number, extra: Partial<UsageLedger> = {}): UsageLedger {
  return { ...emptyUsage(), costUsd, totalTokens, promptTokens: totalTokens, modelCalls: 1, ...extra };
}

function rootInput(extra: Partial<AgentInput> = {}): AgentInput {
  return {
    task: 'split it',
    workspace: '/w',
    selection: { provider: 'scripted', model: 'm' },
    maxSteps: 10,
    mode: 'full',
    askPolicy: 'wait',
    subAgents: DEFAULT_SUB_AGENT_LIMITS,
    ...extra,
  } as AgentInput;
}

function rootState(budget: AgentState['budget'] = {}): AgentState {
  const state = initialState(ROOT, 'system', 'split it');
  state.step = 1;
  state.budget = budget;
  return state;
}

function task(extra: Partial<TaskArguments> = {}): TaskArguments {
  return { description: 'look', prompt: 'Child task', profile: 'read-only', budget_share: 0.25, ...extra };
}

/** Starts the child of call `index` the way the workflow does: its input from childStart, recorded by childStarted. */
function start(state: AgentState, input: AgentInput, index: number, args = task()) {
  const started = childStart(state, input, ROOT, index, args);
  if (!started.start) throw new Error(started.message);
  childStarted(
    state,
    {
      segment: started.segment,
      workflowId: started.workflowId,
      callId: `call_${index}`,
      description: args.description,
      profile: args.profile,
      ...(started.input.budgetUsd !== undefined ? { budgetUsd: started.input.budgetUsd } : {}),
      ...(started.input.maxTokens !== undefined ? { maxTokens: started.input.maxTokens } : {}),
    },
    0,
  );
  return started;
}

function report(segment: string, seq: number, extra: Partial<ChildReport> = {}): ChildReport {
  return { segment, seq, status: 'running', step: seq, usage: usage(0, 0), pending: [], ...extra };
}

function pending(callId: string, requestedAt: number): PendingApproval {
  return { callId, identity: `id:${callId}`, tool: 'Bash', level: 'network_write', reason: 'r', requestedAt };
}

describe('allotment', () => {
  it('gives each child its share of what is left after spending and the running children’s unspent allotments', () => {
    const state = rootState({ budgetUsd: 1, maxTokens: 10_000 });
    state.usage = usage(0.2, 2_000);
    const input = rootInput();
    const first = start(state, input, 0, task({ budget_share: 0.5 }));
    expect(first.input.budgetUsd).toBeCloseTo(0.4); // (1 − 0.2) × 0.5
    expect(first.input.maxTokens).toBe(4_000); // (10 000 − 2 000) × 0.5
    // The first child spent 0.1 of its 0.4: 0.1 counts as spent, 0.3 stays reserved for it.
    applyChildReport(state, report('task-1-0', 1, { usage: usage(0.1, 1_000) }));
    const second = start(state, input, 1, task({ budget_share: 0.5 }));
    expect(second.input.budgetUsd).toBeCloseTo((1 - 0.2 - 0.1 - 0.3) * 0.5);
    expect(second.input.maxTokens).toBe(Math.floor((10_000 - 2_000 - 1_000 - 3_000) * 0.5));
  });

  it('stops reserving a child’s allotment once it ended, keeping what it spent', () => {
    const state = rootState({ budgetUsd: 1 });
    const input = rootInput();
    start(state, input, 0, task({ budget_share: 0.5 }));
    childEnded(state, 'task-1-0', { status: 'completed', usage: usage(0.05, 10) }, 1);
    const next = start(state, input, 1, task({ budget_share: 1 }));
    expect(next.input.budgetUsd).toBeCloseTo(0.95);
  });

  it('refuses a child when nothing is left, and a child of a run without a budget gets none', () => {
    const state = rootState({ maxTokens: 1_000 });
    state.usage = usage(0, 1_000);
    const refused = childStart(state, rootInput(), ROOT, 0, task());
    expect(refused).toMatchObject({ start: false, message: expect.stringMatching(/No token budget is left/) });
    const unbudgeted = childStart(rootState(), rootInput(), ROOT, 0, task());
    expect(unbudgeted.start && unbudgeted.input).not.toHaveProperty('budgetUsd');
    expect(unbudgeted.start && unbudgeted.input).not.toHaveProperty('maxTokens');
  });

  it('links a grandchild to the root and inherits the parent’s remembered approvals', () => {
    const parent = rootInput({
      parent: { rootWorkflowId: ROOT, parentWorkflowId: ROOT, path: 'task-1-0', depth: 1 },
    });
    const state = rootState();
    state.step = 2;
    state.approvals = ['curl example.com'];
    const started = childStart(state, parent, `${ROOT}/task-1-0`, 1, task());
    expect(started).toMatchObject({
      start: true,
      workflowId: `${ROOT}/task-1-0/task-2-1`,
      input: {
        parent: { rootWorkflowId: ROOT, parentWorkflowId: `${ROOT}/task-1-0`, path: 'task-1-0/task-2-1', depth: 2 },
        grantedApprovals: ['curl example.com'],
      },
    });
    const tooDeep = childStart(
      state,
      { ...parent, parent: { ...parent.parent!, depth: 2 } },
      `${ROOT}/task-1-0`,
      0,
      task(),
    );
    expect(tooDeep).toMatchObject({ start: false });
  });
});

describe('ledger', () => {
  it('sums the run’s own ledger and each child’s tree, retries included, keeping the run’s own last prompt', () => {
    const state = rootState();
    state.usage = usage(0.5, 100, { lastPromptTokens: 90, retriedCalls: 1, unpricedModels: ['a'] });
    start(state, rootInput(), 0);
    start(state, rootInput(), 1);
    applyChildReport(
      state,
      report('task-1-0', 1, { usage: usage(0.25, 30, { retriedCalls: 2, lastPromptTokens: 7 }) }),
    );
    childEnded(state, 'task-1-1', { status: 'completed', usage: usage(0.125, 20, { unpricedModels: ['b'] }) }, 1);
    expect(treeUsage(state)).toMatchObject({
      costUsd: 0.875,
      totalTokens: 150,
      modelCalls: 3,
      retriedCalls: 3,
      lastPromptTokens: 90,
      unpricedModels: ['a', 'b'],
    });
    expect(addLedgers(usage(1, 1), usage(2, 2))).toMatchObject({ costUsd: 3, totalTokens: 3, modelCalls: 2 });
  });

  it('is the run’s own ledger, the same object, when it has no children', () => {
    const state = rootState();
    expect(treeUsage(state)).toBe(state.usage);
  });
});

describe('reports', () => {
  it('applies a child’s reports in order: an older or repeated one changes nothing', () => {
    const state = rootState();
    start(state, rootInput(), 0);
    expect(applyChildReport(state, report('task-1-0', 2, { usage: usage(0.2, 20) }))).toBe(true);
    expect(applyChildReport(state, report('task-1-0', 1, { usage: usage(0.1, 10) }))).toBe(false);
    expect(applyChildReport(state, report('task-1-0', 2, { usage: usage(0.9, 90) }))).toBe(false);
    expect(state.children!['task-1-0']!.usage.costUsd).toBe(0.2);
    expect(applyChildReport(state, report('task-9-9', 5))).toBe(false);
  });

  it('ignores what only looks like a report: a Signal anyone with access to the server can send', () => {
    const state = rootState();
    start(state, rootInput(), 0);
    const good = report('task-1-0', 1, { usage: usage(0.2, 20) });
    for (const bad of [
      null,
      'report',
      { ...good, seq: 1.5 },
      { ...good, usage: { ...good.usage, costUsd: Number.NaN } },
      { ...good, usage: { ...good.usage, totalTokens: -1 } },
      { ...good, usage: { ...good.usage, unpricedModels: [1] } },
      { ...good, pending: 'all' },
      { ...good, pending: [{ callId: 'task-1-0/c' }] },
    ])
      expect(applyChildReport(state, bad as never)).toBe(false);
    expect(treeUsage(state).costUsd).toBe(0);
    expect(applyChildReport(state, good)).toBe(true);
  });

  it('keeps a child’s final figures once it ended, whatever reports arrive late', () => {
    const state = rootState();
    start(state, rootInput(), 0);
    applyChildReport(state, report('task-1-0', 1, { pending: [pending('task-1-0/c', 1)] }));
    childEnded(state, 'task-1-0', { status: 'completed', steps: 3, usage: usage(0.3, 30) }, 5);
    expect(applyChildReport(state, report('task-1-0', 9, { usage: usage(9, 9) }))).toBe(false);
    expect(state.children!['task-1-0']).toMatchObject({ status: 'completed', childStep: 3, pending: [] });
    expect(treeUsage(state).costUsd).toBe(0.3);
    expect(runningChildren(state)).toEqual([]);
  });

  it('keeps what a cancelled child reported last when it ended without a result', () => {
    const state = rootState();
    start(state, rootInput(), 0);
    applyChildReport(state, report('task-1-0', 1, { usage: usage(0.4, 40) }));
    childEnded(state, 'task-1-0', { status: 'cancelled' }, 5);
    expect(treeUsage(state).costUsd).toBe(0.4);
  });
});

describe('approval routing', () => {
  it('lists every child’s pending approvals oldest first and routes an id to the child whose tree holds it', () => {
    const state = rootState();
    start(state, rootInput(), 0);
    start(state, rootInput(), 1);
    applyChildReport(
      state,
      report('task-1-0', 1, { pending: [pending('task-1-0/a', 30), pending('task-1-0/task-2-0/b', 10)] }),
    );
    applyChildReport(state, report('task-1-1', 1, { pending: [pending('task-1-1/a', 20)] }));
    expect(descendantApprovals(state).map((item) => item.callId)).toEqual([
      'task-1-0/task-2-0/b',
      'task-1-1/a',
      'task-1-0/a',
    ]);
    expect(childOfApproval(state, 'task-1-0/task-2-0/b')?.segment).toBe('task-1-0');
    expect(childOfApproval(state, 'task-1-1/a')?.segment).toBe('task-1-1');
    expect(childOfApproval(state, 'task-1-1/nothing')).toBeUndefined();
    // A child that ended takes nothing any more.
    childEnded(state, 'task-1-1', { status: 'completed' }, 40);
    expect(childOfApproval(state, 'task-1-1/a')).toBeUndefined();
  });
});
