// Sub-agents' lifecycle end to end on the real server: cancelling or interrupting the root reaches its children and
// their commands, a child's failure or limit is its parent's tool error, and the state query shows running children.
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readFile, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WorkflowHandle } from '@temporalio/client';
import type { ScriptTurn } from '../../src/scripted-model/server.js';
import { startScriptedModelServer } from '../../src/scripted-model/server.js';
import { stateQuery } from '../../src/protocol/run-messages.js';
import { interruptRun } from '../../src/protocol/run-control.js';
import { approveToolCall } from '../../src/protocol/run-messages.js';
import { DEFAULT_SUB_AGENT_LIMITS } from '../../src/core/sub-agents/limits.js';
import type { Harness } from '../support/harness.js';
import { startHarness, startScriptedRun, temporalAddress, toolResult, workspaceFrom } from '../support/harness.js';
import { hostPidsRunning, uniqueSleepSeconds } from '../support/host-processes.js';
import { waitFor } from '../support/wait.js';
import { childCommandScript } from '../support/sub-agent-scripts.js';
import type { WorkerProcess } from '../support/worker-process.js';
import { startWorkerProcess, writeWorkflowBundle } from '../support/worker-process.js';
import { agentWorkflow } from '../../src/workflows/agent.js';
import type { AgentInput } from '../../src/core/state.js';

let harness: Harness;
beforeAll(async () => {
  harness = await startHarness();
});
afterAll(async () => {
  await harness?.close();
});

/** The Task call's child once it is running, read from the root's state query. */
async function runningChild(handle: WorkflowHandle, segment = 'task-1-0') {
  return waitFor(async () => {
    const child = (await handle.query(stateQuery)).children?.find((candidate) => candidate.segment === segment);
    return child?.status === 'running' ? child : undefined;
  }, `child ${segment} to run`);
}

async function statusOf(workflowId: string): Promise<string> {
  return (await harness.client.workflow.getHandle(workflowId).describe()).status.name;
}

/** The steps after which the run `workflowId` continued as new, as its progress says. */
async function continuedAfter(workflowId: string): Promise<number[]> {
  const view = await harness.client.workflow.getHandle(workflowId).query(stateQuery);
  return view.progress.filter((entry) => entry.kind === 'continued').map((entry) => entry.step);
}

const limits = { subAgents: DEFAULT_SUB_AGENT_LIMITS, askPolicy: 'approve' as const };

/** A root whose one code-edit child runs `sleep <unique>`, then `after`: returned once the child runs the sleep. */
async function startSleepingChild(after: ScriptTurn[] = [], input: Partial<AgentInput> = limits) {
  const token = uniqueSleepSeconds();
  const run = await startScriptedRun(harness, {
    script: childCommandScript(`sleep ${token}`, after),
    workspace: await workspaceFrom(),
    task: 'Root task: delegate.',
    input,
  });
  const sleeping = () => hostPidsRunning(`sleep\0${token}`);
  try {
    const child = await runningChild(run.handle);
    await waitFor(async () => ((await sleeping()).length ? true : undefined), 'the sleep');
    return { ...run, child, sleeping };
  } catch (error) {
    await run.model.close();
    throw error;
  }
}

describe('cancelling the root (the state query shows the running child first)', () => {
  it('cancels its running child and kills the command the child runs; the root ends cancelled', async () => {
    const { handle, model, child, sleeping } = await startSleepingChild();
    try {
      expect(child).toMatchObject({
        workflowId: `${handle.workflowId}/task-1-0`,
        callId: 'task',
        description: 'nap',
        step: 1,
        status: 'running',
        profile: 'code-edit',
      });
      await handle.cancel();
      await expect(handle.result()).rejects.toThrow();
      expect(await statusOf(handle.workflowId)).toBe('CANCELLED');
      expect(await statusOf(child.workflowId)).toBe('CANCELLED');
      // The root waited for the child's cancellation to complete, and the child for its command's.
      expect(await sleeping()).toEqual([]);
    } finally {
      await model.close();
    }
  }, 60_000);
  it('cancels every child running in parallel, each in the middle of its model call', async () => {
    const names = ['one', 'two'];
    const { handle, model } = await startScriptedRun(harness, {
      script: [
        {
          for_task: 'Root task',
          tool_calls: names.map((name) => ({ id: name, name: 'Task', arguments: taskArgs(`Child ${name}: think.`) })),
        },
        ...names.map((name): ScriptTurn => ({ for_task: `Child ${name}`, content: 'too late', delay_ms: 60_000 })),
      ],
      workspace: await workspaceFrom(),
      task: 'Root task: delegate.',
      input: limits,
    });
    try {
      await waitFor(async () => (model.requests.length === 3 ? true : undefined), 'both children to call the model');
      const cancelledAt = Date.now();
      await handle.cancel();
      await expect(handle.result()).rejects.toThrow();
      expect(Date.now() - cancelledAt).toBeLessThan(10_000);
      for (const index of [0, 1]) expect(await statusOf(`${handle.workflowId}/task-1-${index}`)).toBe('CANCELLED');
    } finally {
      await model.close();
    }
  }, 60_000);
});

describe('interrupting the root', () => {
  it('cancels the running child (its Task call answers that it was interrupted) and the root goes on', async () => {
    const { handle, model, child, sleeping } = await startSleepingChild([
      { for_task: 'Root task', content: 'stopped the child' },
    ]);
    try {
      const receipt = await handle.executeUpdate(interruptRun, { args: [{ id: 'stop-child', text: 'not needed' }] });
      expect(receipt.interrupted).toEqual([`sub-agent ${child.workflowId}`]);
      const result = await handle.result();
      expect(result).toMatchObject({ status: 'completed', answer: 'stopped the child' });
      expect(await statusOf(child.workflowId)).toBe('CANCELLED');
      expect(await sleeping()).toEqual([]);
      const task = toolResult(model.requests.at(-1)!.messages, 'task');
      expect(task.error).toMatchObject({ code: 'CANCELLED', details: { reason: 'interrupted' } });
      const view = await handle.query(stateQuery);
      expect(view.children?.find((child) => child.segment === 'task-1-0')?.status).toBe('cancelled');
    } finally {
      await model.close();
    }
  }, 60_000);
  it("drops the child's pending approval from the root with the child", async () => {
    const workspace = await workspaceFrom();
    await mkdir(join(workspace, 'build'));
    const { handle, model } = await startScriptedRun(harness, {
      script: childCommandScript('rm -rf build', [{ for_task: 'Root task', content: 'kept the build' }]),
      workspace,
      task: 'Root task: delegate.',
      input: { ...limits, askPolicy: 'wait' },
    });
    try {
      await waitFor(async () => {
        const view = await handle.query(stateQuery);
        return view.pendingApprovals.some((approval) => approval.callId === 'task-1-0/nap') ? true : undefined;
      }, 'the child approval at the root');
      const receipt = await handle.executeUpdate(interruptRun, { args: [{ id: 'no-rm', text: 'keep the build' }] });
      expect(receipt.interrupted).toEqual([`sub-agent ${handle.workflowId}/task-1-0`]);
      const result = await handle.result();
      expect(result).toMatchObject({ status: 'completed', answer: 'kept the build' });
      expect((await handle.query(stateQuery)).pendingApprovals).toEqual([]);
      const described = await handle.describe();
      expect(described.searchAttributes.AgentPendingApprovals).toEqual([0]);
      expect(await statusOf(`${handle.workflowId}/task-1-0`)).toBe('CANCELLED');
      expect((await stat(join(workspace, 'build'))).isDirectory()).toBe(true);
    } finally {
      await model.close();
    }
  }, 60_000);
});

describe("a child's failure", () => {
  it("is the parent's tool error with the child's message: a model call that fails for good", async () => {
    const { handle, model } = await startScriptedRun(harness, {
      script: [
        { for_task: 'Root task', tool_calls: [{ id: 'task', name: 'Task', arguments: taskArgs('Child task: fail.') }] },
        { for_task: 'Child task', error: { status: 400, body: { error: { message: 'the child model refuses' } } } },
        { for_task: 'Root task', content: 'went on without it' },
      ],
      workspace: await workspaceFrom(),
      task: 'Root task: delegate.',
      input: limits,
    });
    try {
      const result = await handle.result();
      expect(result).toMatchObject({ status: 'completed', answer: 'went on without it' });
      const task = toolResult(model.requests.at(-1)!.messages, 'task');
      expect(task.error.code).toBe('EXECUTION_ERROR');
      expect(task.error.message).toContain(`The sub-agent ${handle.workflowId}/task-1-0 failed:`);
      expect(task.error.message).toContain('the child model refuses');
      expect(await statusOf(`${handle.workflowId}/task-1-0`)).toBe('FAILED');
    } finally {
      await model.close();
    }
  }, 60_000);

  // A terminated child's activities learn it at their next heartbeat; a cancelled one's are cancelled at once.
  it.each([
    { how: 'terminating', status: 'TERMINATED', says: 'terminated by an operator' },
    { how: 'cancelling', status: 'CANCELLED', says: 'cancelled by an operator' },
  ])(
    'is an operator $how the child alone: its command is killed, the parent reads a tool error and goes on',
    async ({ how, status, says }) => {
      const { handle, model, child, sleeping } = await startSleepingChild([
        { for_task: 'Root task', content: 'without the child' },
      ]);
      try {
        const childHandle = harness.client.workflow.getHandle(child.workflowId);
        if (how === 'terminating') await childHandle.terminate('operator stops it');
        else await childHandle.cancel();
        const result = await handle.result();
        expect(result).toMatchObject({ status: 'completed', answer: 'without the child' });
        const task = toolResult(model.requests.at(-1)!.messages, 'task');
        expect(task.error.code).toBe('EXECUTION_ERROR');
        expect(task.error.message).toContain(says);
        expect(await statusOf(child.workflowId)).toBe(status);
        await waitFor(
          async () => ((await sleeping()).length === 0 ? true : undefined),
          'the command of the stopped child to be killed',
        );
      } finally {
        await model.close();
      }
    },
    60_000,
  );

  it("hits the Task call's max_steps, capped by the run's per-child step limit", async () => {
    const { handle, model } = await startScriptedRun(harness, {
      script: [
        {
          for_task: 'Root task',
          tool_calls: [
            { id: 'asked', name: 'Task', arguments: { ...taskArgs('Child one: loop.'), max_steps: 1 } },
            { id: 'capped', name: 'Task', arguments: { ...taskArgs('Child two: loop.'), max_steps: 50 } },
          ],
        },
        ...['Child one', 'Child two', 'Child two'].map((task): ScriptTurn => ({
          for_task: task,
          tool_calls: [{ name: 'Glob', arguments: { pattern: '*' } }],
        })),
        { for_task: 'Root task', content: 'both stopped' },
      ],
      workspace: await workspaceFrom(),
      task: 'Root task: delegate.',
      input: { ...limits, subAgents: { ...DEFAULT_SUB_AGENT_LIMITS, maxSteps: 2 } },
    });
    try {
      const result = await handle.result();
      expect(result).toMatchObject({ status: 'completed', answer: 'both stopped' });
      const last = model.requests.at(-1)!.messages;
      const asked = toolResult(last, 'asked');
      expect(asked.error.code).toBe('EXECUTION_ERROR');
      expect(asked.error.message).toMatch(/step limit \(1\)/);
      expect(asked.error.details).toMatchObject({ steps: 1 });
      const capped = toolResult(last, 'capped');
      expect(capped.error.message).toMatch(/step limit \(2\)/);
      expect(capped.error.details).toMatchObject({ steps: 2 });
      expect(model.remaining()).toBe(0);
    } finally {
      await model.close();
    }
  }, 60_000);

  it('runs out of its time: a TIMEOUT error, the child cancelled and its command killed', async () => {
    const { handle, model, child, sleeping } = await startSleepingChild(
      [{ for_task: 'Root task', content: 'the child was too slow' }],
      { ...limits, subAgents: { ...DEFAULT_SUB_AGENT_LIMITS, timeoutMs: 4_000 } },
    );
    try {
      const result = await handle.result();
      expect(result).toMatchObject({ status: 'completed', answer: 'the child was too slow' });
      const task = toolResult(model.requests.at(-1)!.messages, 'task');
      expect(task.error.code).toBe('TIMEOUT');
      expect(task.error.message).toContain('ran out of its time (4 s)');
      expect(await statusOf(child.workflowId)).toBe('CANCELLED');
      expect(await sleeping()).toEqual([]);
      expect((await handle.query(stateQuery)).children?.find((child) => child.segment === 'task-1-0')?.status).toBe(
        'timed_out',
      );
    } finally {
      await model.close();
    }
  }, 60_000);
});

describe('continue-as-new', () => {
  it('keeps the links: a child started after its parent continued, and continuing itself, reports, is approved at the root and answers', async () => {
    const workspace = await workspaceFrom();
    await mkdir(join(workspace, 'build'));
    const list = (id: string): ScriptTurn['tool_calls'] => [{ id, name: 'Glob', arguments: { pattern: '*' } }];
    const { handle, model } = await startScriptedRun(harness, {
      script: [
        {
          for_task: 'Root task',
          tool_calls: [{ id: 'early', name: 'Task', arguments: taskArgs('Early child: answer.') }],
        },
        { for_task: 'Early child', content: 'early answer' },
        { for_task: 'Root task', tool_calls: list('r2') },
        // The root continued as new after step 2; this child starts in its step 3.
        {
          for_task: 'Root task',
          tool_calls: [
            { id: 'late', name: 'Task', arguments: { ...taskArgs('Late child: write.'), profile: 'code-edit' } },
          ],
        },
        { for_task: 'Late child', tool_calls: list('c1') },
        { for_task: 'Late child', tool_calls: list('c2') },
        // The child continued as new after its step 2; its command waits for the operator's decision at the root.
        {
          for_task: 'Late child',
          tool_calls: [{ id: 'w1', name: 'Bash', arguments: { command: 'rm -rf build' } }],
        },
        { for_task: 'Late child', content: 'late answer' },
        { for_task: 'Root task', content: 'both answered' },
      ],
      workspace,
      task: 'Root task: delegate twice.',
      input: { subAgents: DEFAULT_SUB_AGENT_LIMITS, askPolicy: 'wait', continueAsNewEverySteps: 2 },
    });
    try {
      const childId = `${handle.workflowId}/task-3-0`;
      const pending = await waitFor(async () => {
        const view = await handle.query(stateQuery);
        return view.pendingApprovals.find((approval) => approval.callId === 'task-3-0/w1') ? view : undefined;
      }, 'the late child approval at the root');
      // The child's reports reached the root's new run: its step after its own continue-as-new, and what it waits for.
      const late = pending.children?.find((child) => child.segment === 'task-3-0');
      expect(late).toMatchObject({ workflowId: childId, status: 'waiting_approval', childStep: 3 });
      expect(pending.children?.find((child) => child.segment === 'task-1-0')?.status).toBe('completed');
      expect(await continuedAfter(childId)).toEqual([2]);
      const outcome = await handle.executeUpdate(approveToolCall, {
        args: [{ tool_call_id: 'task-3-0/w1', decision: 'approve' }],
      });
      expect(outcome).toMatchObject({ tool_call_id: 'task-3-0/w1', decision: 'approve' });
      const result = await handle.result();
      expect(result).toMatchObject({ status: 'completed', answer: 'both answered' });
      await expect(stat(join(workspace, 'build'))).rejects.toThrow(/ENOENT/);
      const last = model.requests.at(-1)!.messages;
      expect(toolResult(last, 'early').text).toBe('early answer');
      expect(toolResult(last, 'late').text).toBe('late answer');
      expect(await continuedAfter(handle.workflowId)).toEqual([2]);
      expect(result.totalUsage!.modelCalls).toBe(9);
    } finally {
      await model.close();
    }
  }, 90_000);
  it('shows the root a child that continued as new as running, not as continued', async () => {
    const glob: ScriptTurn = { for_task: 'Child task', tool_calls: [{ name: 'Glob', arguments: { pattern: '*' } }] };
    const { handle, model } = await startScriptedRun(harness, {
      script: [
        { for_task: 'Root task', tool_calls: [{ id: 'task', name: 'Task', arguments: taskArgs('Child task: look.') }] },
        glob,
        glob,
        // The child's first model call after it continued as new.
        { for_task: 'Child task', content: 'looked', delay_ms: 4_000 },
        { for_task: 'Root task', content: 'done' },
      ],
      workspace: await workspaceFrom(),
      task: 'Root task: delegate.',
      input: { ...limits, continueAsNewEverySteps: 2 },
    });
    try {
      await waitFor(async () => (model.requests.length === 4 ? true : undefined), "the child's third model call");
      const child = (await handle.query(stateQuery)).children?.find((candidate) => candidate.segment === 'task-1-0');
      // Its runs' endings are never reported (only its own ending is its parent's to learn), so it stays running.
      expect(child).toMatchObject({ status: 'running' });
      expect(await continuedAfter(child!.workflowId)).toEqual([2]);
      expect(await handle.result()).toMatchObject({ status: 'completed', answer: 'done' });
    } finally {
      await model.close();
    }
  }, 60_000);
});

describe('SIGKILL of the worker mid-child', () => {
  it('resumes the child on a new worker; the child is started once and the root picks up its answer', async () => {
    const directory = await mkdtemp(join(tmpdir(), 'durable-agent-kill-'));
    const config = {
      address: temporalAddress(),
      taskQueue: `sub-agents-kill-${randomBytes(4).toString('hex')}`,
      storeDir: join(directory, 'store'),
      bundlePath: await writeWorkflowBundle(directory),
      env: { OPENAI_API_KEY: 'test-key' },
    };
    const workspace = await workspaceFrom();
    const model = await startScriptedModelServer({
      script: childCommandScript('echo start >> child.log; sleep 8', [{ for_task: 'Root task', content: 'resumed' }]),
    });
    const workers: WorkerProcess[] = [await startWorkerProcess(config)];
    try {
      const handle = await harness.client.workflow.start(agentWorkflow, {
        workflowId: `agent-test-${randomBytes(4).toString('hex')}`,
        taskQueue: config.taskQueue,
        args: [
          {
            task: 'Root task: delegate.',
            workspace,
            selection: { provider: 'openai', model: 'scripted-model', baseUrl: model.url },
            maxSteps: 10,
            mode: 'default',
            ...limits,
          },
        ],
      });
      await waitFor(
        async () => ((await readFile(join(workspace, 'child.log'), 'utf8')).includes('start') ? true : undefined),
        'the child command to start',
        { timeoutMs: 60_000 },
      );
      await workers[0]!.kill();
      workers.push(await startWorkerProcess(config));
      const result = await handle.result();
      expect(result).toMatchObject({ status: 'completed', answer: 'resumed' });
      expect(toolResult(model.requests.at(-1)!.messages, 'task').text).toBe('slept');
      const { events } = await handle.fetchHistory();
      const initiated = events!.flatMap((event) => event.startChildWorkflowExecutionInitiatedEventAttributes ?? []);
      expect(initiated.map((attributes) => attributes.workflowId)).toEqual([`${handle.workflowId}/task-1-0`]);
      expect(events!.filter((event) => event.childWorkflowExecutionStartedEventAttributes)).toHaveLength(1);
      expect(events!.filter((event) => event.childWorkflowExecutionCompletedEventAttributes)).toHaveLength(1);
    } finally {
      for (const worker of workers) await worker.stop();
      await model.close();
    }
  }, 120_000);
});

function taskArgs(prompt: string) {
  return { description: prompt.slice(0, 20), prompt, profile: 'read-only' };
}
