// Durable orchestration end to end on the real server: parallel fan-out, breakers, fallbacks, continue-as-new,
// cancellation, and per-host tool queues. Evidence comes from the event history and the model's next request.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import type { WorkflowHandle } from '@temporalio/client';
import { WorkflowFailedError } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChatMessage } from '../../src/core/messages.js';
import type { ScriptTurn } from '../../src/providers/scripted-server.js';
import { approveToolCall, stateQuery } from '../../src/workflows/messages.js';
import type { Harness } from '../support/harness.js';
import { assertValidChatRequest, startHarness, startScriptedRun, toolResult, workspaceFrom } from '../support/harness.js';
import { saveHistory } from '../support/histories.js';

let harness: Harness;
beforeAll(async () => {
  harness = await startHarness(
    { OPENAI_API_KEY: 'test-key' },
    {
      // Grep's executor fails for one pattern, as a corrupted index or a broken binary would, so its fallback can be seen.
      executors: {
        Grep: async (context) => {
          if (context.request.input.pattern === 'FALLBACK_ME') throw new Error('search index is corrupted');
          const { executeGrep } = await import('../../src/activities/executors/grep.js');
          return executeGrep(context);
        },
      },
    },
  );
});
afterAll(async () => {
  await harness?.close();
});

type Requests = { messages: ChatMessage[]; tools?: { function: { name: string } }[] }[];

function offered(request: Requests[number]): string[] {
  return (request.tools ?? []).map((tool) => tool.function.name);
}

async function eventsOf(handle: WorkflowHandle) {
  const history = await handle.fetchHistory();
  return history.events ?? [];
}

describe('parallel fan-out', () => {
  it('schedules four read-only calls before any completes and answers them in request order', async () => {
    const workspace = await workspaceFrom();
    await writeFile(join(workspace, 'a.txt'), 'alpha\n');
    await writeFile(join(workspace, 'b.txt'), 'beta\n');
    const { handle, model } = await startScriptedRun(harness, {
      workspace,
      script: [
        {
          tool_calls: [
            { id: 'r1', name: 'ReadFile', arguments: { path: 'a.txt' } },
            { id: 'g1', name: 'Glob', arguments: { pattern: '*.txt' } },
            { id: 'r2', name: 'ReadFile', arguments: { path: 'b.txt' } },
            { id: 's1', name: 'Grep', arguments: { pattern: 'beta' } },
          ],
        },
        { content: 'read all four' },
      ],
    });
    try {
      await handle.result();
      const events = await eventsOf(handle);
      const tools = new Set(['ReadFile', 'Glob', 'Grep']);
      const scheduled = events.filter((event) => tools.has(event.activityTaskScheduledEventAttributes?.activityType?.name ?? ''));
      const firstToolCompletion = events.findIndex(
        (event) => event.activityTaskCompletedEventAttributes && Number(event.eventId) > Number(scheduled[0]!.eventId),
      );
      expect(scheduled.map((event) => event.activityTaskScheduledEventAttributes!.activityType!.name)).toEqual(['ReadFile', 'Glob', 'ReadFile', 'Grep']);
      for (const event of scheduled) expect(events.indexOf(event)).toBeLessThan(firstToolCompletion);
      const messages = (model.requests[1] as Requests[number]).messages;
      expect(messages.filter((message) => message.role === 'tool').map((message) => (message as { tool_call_id: string }).tool_call_id)).toEqual([
        'r1',
        'g1',
        'r2',
        's1',
      ]);
      await saveHistory('fan-out', handle);
    } finally {
      await model.close();
    }
  });
});

describe('circuit breaker', () => {
  it('opens after three Bash timeouts, hides Bash, and lets exactly one trial through after the recovery time', async () => {
    const workspace = await workspaceFrom();
    const timeout: ScriptTurn = { tool_calls: [{ name: 'Bash', arguments: { command: 'sleep 5', timeout_ms: 100 } }] };
    const { handle, model } = await startScriptedRun(harness, {
      workspace,
      input: { breaker: { recovery_ms: 3000 } },
      script: [
        timeout,
        timeout,
        timeout,
        // Bash is not offered now; a call anyway is short-circuited.
        { tool_calls: [{ id: 'rejected', name: 'Bash', arguments: { command: 'echo hi' } }] },
        // The model thinks for longer than the recovery time.
        { delay_ms: 3500, tool_calls: [{ id: 'trial', name: 'Bash', arguments: { command: 'echo recovered' } }] },
        { content: 'done' },
      ],
    });
    try {
      await handle.result();
      const requests = model.requests as Requests;
      expect(offered(requests[2]!)).toContain('Bash');
      expect(offered(requests[3]!)).not.toContain('Bash');
      expect(toolResult(requests[4]!.messages, 'rejected').error.code).toBe('CIRCUIT_OPEN');
      expect(toolResult(requests[4]!.messages, 'rejected').error.details.retry_after_ms).toBeGreaterThan(0);
      expect(toolResult(requests[5]!.messages, 'trial').status).toBe('success');
      const state = await handle.query(stateQuery);
      expect(state.breakers.Bash).toMatchObject({ state: 'CLOSED', failures: 0 });
    } finally {
      await model.close();
    }
  });
});

describe('fallback chains', () => {
  it('serves a Grep call through its Bash fallback when Grep keeps failing, and says so', async () => {
    const workspace = await workspaceFrom();
    await writeFile(join(workspace, 'notes.md'), 'first\nFALLBACK_ME here\n');
    const { handle, model } = await startScriptedRun(harness, {
      workspace,
      script: [{ tool_calls: [{ id: 'g', name: 'Grep', arguments: { pattern: 'FALLBACK_ME' } }] }, { content: 'found it' }],
    });
    try {
      await handle.result();
      const envelope = toolResult((model.requests[1] as Requests[number]).messages, 'g');
      expect(envelope.status).toBe('success');
      expect(envelope.data.fallback).toMatchObject({ served_by: 'Bash', primary: 'Grep', reason: 'primary_failed:INTERNAL_ERROR' });
      expect(envelope.data.stdout).toContain('notes.md:2:FALLBACK_ME here');
      expect(envelope.text).toMatch(/served by Bash/);
    } finally {
      await model.close();
    }
  });
});

describe('continue-as-new', () => {
  it('completes a 20-step script continuing as new every 3 steps, with breakers, read-state and approvals intact', async () => {
    const workspace = await workspaceFrom();
    await writeFile(join(workspace, 'plan.txt'), 'status: draft\n');
    const glob: ScriptTurn = { tool_calls: [{ name: 'Glob', arguments: { pattern: '*' } }] };
    const timeout: ScriptTurn = { tool_calls: [{ name: 'Bash', arguments: { command: 'sleep 5', timeout_ms: 100 } }] };
    const script: ScriptTurn[] = [
      { tool_calls: [{ id: 'read', name: 'ReadFile', arguments: { path: 'plan.txt' } }] }, // 1: read-state entry
      { tool_calls: [{ id: 'push1', name: 'Bash', arguments: { command: 'git push origin main' } }] }, // 2: asks; approved, remembered
      glob, // 3 (continue as new)
      glob,
      { tool_calls: [{ id: 'push2', name: 'Bash', arguments: { command: 'git push origin other' } }] }, // 5: same key, no ask
      glob, // 6 (continue as new)
      timeout, // 7: Bash failure 1
      glob,
      timeout, // 9: failure 2 (continue as new after it)
      glob,
      timeout, // 11: failure 3 → OPEN
      glob, // 12: Bash no longer offered
      glob,
      { tool_calls: [{ id: 'edit', name: 'EditFile', arguments: { path: 'plan.txt', old_string: 'draft', new_string: 'final' } }] }, // 14
      glob,
      glob,
      glob,
      glob,
      glob,
      { content: 'twenty steps done' }, // 20
    ];
    const { handle, model } = await startScriptedRun(harness, {
      workspace,
      script,
      input: { continueAsNewEverySteps: 3, askPolicy: 'wait', maxSteps: 25, breaker: { recovery_ms: 600_000 } },
    });
    try {
      // Approve the first push and remember its key for the task.
      for (;;) {
        const view = await handle.query(stateQuery).catch(() => undefined);
        const pending = view?.pendingApprovals[0];
        if (pending) {
          expect(pending).toMatchObject({ callId: 'push1', level: 'network_write', key: 'git push' });
          await handle.executeUpdate(approveToolCall, { args: [{ tool_call_id: 'push1', decision: 'approve', remember: true }] });
          break;
        }
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      const result = await handle.result();
      expect(result).toMatchObject({ status: 'completed', answer: 'twenty steps done', steps: 20 });
      const requests = model.requests as Requests;
      for (const request of requests) assertValidChatRequest(request as never);
      expect(toolResult(requests[5]!.messages, 'push2').error?.code).not.toBe('PERMISSION_DENIED');
      expect(offered(requests[10]!)).toContain('Bash');
      expect(offered(requests[11]!)).not.toContain('Bash'); // three failures across runs opened the breaker
      expect(toolResult(requests[14]!.messages, 'edit').status).toBe('success'); // read-state from run 1 still there
      expect(await readFile(join(workspace, 'plan.txt'), 'utf8')).toBe('status: final\n');
      const description = await handle.describe();
      expect(description.runId).not.toBe(handle.firstExecutionRunId);
      const state = await handle.query(stateQuery);
      expect(state.breakers.Bash?.state).toBe('OPEN');
    } finally {
      await model.close();
    }
  });
});

describe('context compaction', () => {
  it('summarises older turns with a model call when the transcript nears the budget, keeping recent turns', async () => {
    const workspace = await workspaceFrom();
    await writeFile(join(workspace, 'big.txt'), 'lorem ipsum dolor sit amet '.repeat(200));
    const read = (id: string): ScriptTurn => ({ tool_calls: [{ id, name: 'ReadFile', arguments: { path: 'big.txt' } }] });
    const { handle, model } = await startScriptedRun(harness, {
      workspace,
      input: { compactAtTokens: 4_000 },
      script: [
        read('r1'),
        read('r2'),
        read('r3'),
        read('r4'),
        read('r5'),
        { content: 'SUMMARY: read big.txt five times; it is lorem ipsum; nothing changed yet.' },
        { content: 'finished after compaction' },
      ],
    });
    try {
      const result = await handle.result();
      expect(result.answer).toBe('finished after compaction');
      const requests = model.requests as Requests;
      const summarising = requests[5]!;
      expect(summarising.tools ?? []).toEqual([]);
      expect(summarising.messages[1]!.content).toContain('The history to summarise');
      const after = requests[6]!.messages;
      assertValidChatRequest(requests[6] as never);
      expect(after[2]).toMatchObject({ role: 'user' });
      expect(after[2]!.content).toContain('SUMMARY: read big.txt five times');
      expect(after.some((message) => message.role === 'tool' && message.tool_call_id === 'r1')).toBe(false);
      expect(after.some((message) => message.role === 'tool' && message.tool_call_id === 'r5')).toBe(true);
    } finally {
      await model.close();
    }
  });
});

describe('cancellation', () => {
  it('ends a running command within seconds when the run is cancelled', async () => {
    const workspace = await workspaceFrom();
    const { handle, model } = await startScriptedRun(harness, {
      workspace,
      input: { askPolicy: 'approve' },
      script: [{ tool_calls: [{ name: 'Bash', arguments: { command: 'echo $$ > pid; exec sleep 300' } }] }],
    });
    try {
      const pidFile = join(workspace, 'pid');
      let pid = 0;
      for (let waited = 0; !pid && waited < 30_000; waited += 100) {
        pid = Number((await readFile(pidFile, 'utf8').catch(() => '')).trim());
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(pid).toBeGreaterThan(0);
      await handle.cancel();
      const failure = await handle.result().catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(WorkflowFailedError);
      expect((await handle.describe()).status.name).toBe('CANCELLED');
      const alive = (): boolean => {
        try {
          process.kill(pid, 0);
          return true;
        } catch {
          return false;
        }
      };
      const deadline = Date.now() + 10_000;
      while (alive() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
      expect(alive()).toBe(false);
    } finally {
      await model.close();
    }
  });
});

describe('many hosts', () => {
  it('runs each run’s tools on the worker that owns its workspace', async () => {
    const suffix = randomBytes(3).toString('hex');
    const shared = `shared-${suffix}`;
    const hostA = await startHarness({ OPENAI_API_KEY: 'k' }, { taskQueue: shared, toolTaskQueue: `${shared}@host-a`, identity: `host-a-${suffix}` });
    // Hosts share the content store, as a deployment's workers share one bucket.
    const hostB = await startHarness(
      { OPENAI_API_KEY: 'k' },
      { taskQueue: shared, toolTaskQueue: `${shared}@host-b`, identity: `host-b-${suffix}`, store: hostA.store },
    );
    try {
      const runs = await Promise.all(
        (['a', 'b'] as const).map(async (host) => {
          const workspace = await workspaceFrom();
          await writeFile(join(workspace, 'owner.txt'), `host ${host}\n`);
          return startScriptedRun(host === 'a' ? hostA : hostB, {
            workspace,
            input: { toolTaskQueue: `${shared}@host-${host}` },
            script: [
              { tool_calls: [{ name: 'ReadFile', arguments: { path: 'owner.txt' } }, { name: 'Glob', arguments: { pattern: '*' } }] },
              { tool_calls: [{ name: 'Bash', arguments: { command: 'cat owner.txt' } }] },
              { content: `done on ${host}` },
            ],
          });
        }),
      );
      for (const [position, { handle, model }] of runs.entries()) {
        const host = position === 0 ? 'a' : 'b';
        await handle.result();
        await model.close();
        const events = await eventsOf(handle);
        const started = new Map<string, string>();
        for (const event of events) {
          const attributes = event.activityTaskStartedEventAttributes;
          if (attributes) started.set(String(attributes.scheduledEventId), attributes.identity ?? '');
        }
        const tools = events.filter(
          (event) =>
            event.activityTaskScheduledEventAttributes &&
            ['ReadFile', 'Glob', 'Bash'].includes(event.activityTaskScheduledEventAttributes.activityType?.name ?? ''),
        );
        expect(tools.length).toBe(3);
        for (const event of tools) {
          expect(event.activityTaskScheduledEventAttributes!.taskQueue?.name).toBe(`${shared}@host-${host}`);
          expect(started.get(String(event.eventId))).toBe(`host-${host}-${suffix}`);
        }
      }
    } finally {
      await hostA.close();
      await hostB.close();
    }
  });
});
