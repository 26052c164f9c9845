// Durable orchestration end to end on the real server: parallel fan-out, breakers, fallbacks, continue-as-new,
// cancellation, and per-host tool queues. Evidence comes from the event history and the model's next request.
import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import type { WorkflowHandle } from '@temporalio/client';
import { WorkflowFailedError } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChatMessage } from '../../src/protocol/model.js';
import type { ScriptTurn } from '../../src/scripted-model/server.js';
import { approveToolCall, stateQuery } from '../../src/protocol/run-messages.js';
import type { Harness } from '../support/harness.js';
import {
  assertValidChatRequest,
  startHarness,
  startScriptedRun,
  toolResult,
  workspaceFrom,
} from '../support/harness.js';
import { saveHistory } from '../support/histories.js';
import { hostPidsRunning, uniqueSleepSeconds } from '../support/host-processes.js';
import { waitFor } from '../support/wait.js';

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
      // A read that takes a while, so calls that overlap can be told from calls that run one after another.
      functions: [
        {
          name: 'slow_lookup',
          description: 'Looks a word up (slowly).',
          risk: 'read_only',
          concurrencySafe: true,
          fn: async (input: string) => {
            await new Promise((resolve) => setTimeout(resolve, 300));
            return `looked up ${input}`;
          },
        },
      ],
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

/** The data of a local activity's marker. */
interface LocalActivityMarker {
  activity_type: string;
  original_schedule_time: { seconds: number; nanos: number };
  complete_time: { seconds: number; nanos: number };
}

describe('parallel fan-out', () => {
  const fourReads = [
    { id: 'r1', name: 'ReadFile', arguments: { path: 'a.txt' } },
    { id: 'g1', name: 'Glob', arguments: { pattern: '*.txt' } },
    { id: 'r2', name: 'ReadFile', arguments: { path: 'b.txt' } },
    { id: 's1', name: 'Grep', arguments: { pattern: 'beta' } },
  ];

  async function readsWorkspace() {
    const workspace = await workspaceFrom();
    await writeFile(join(workspace, 'a.txt'), 'alpha\n');
    await writeFile(join(workspace, 'b.txt'), 'beta\n');
    return workspace;
  }

  function answeredInOrder(messages: Requests[number]['messages']): string[] {
    return messages
      .filter((message) => message.role === 'tool')
      .map((message) => (message as { tool_call_id: string }).tool_call_id);
  }

  it('runs four reads of a workspace on this host as local activities, all started before any completes', async () => {
    const lookups = ['l1', 'l2', 'l3', 'l4'].map((id) => ({ id, name: 'slow_lookup', arguments: { input: id } }));
    const { handle, model } = await startScriptedRun(harness, {
      workspace: await readsWorkspace(),
      script: [{ tool_calls: lookups }, { content: 'looked up four' }],
    });
    try {
      await handle.result();
      const reads = (await eventsOf(handle)).flatMap((event) => {
        const data = event.markerRecordedEventAttributes?.details?.data?.payloads?.[0]?.data;
        if (!data) return [];
        const marker = JSON.parse(Buffer.from(data).toString('utf8')) as LocalActivityMarker;
        return marker.activity_type === 'slow_lookup' ? [marker] : [];
      });
      // No scheduled activity: the four ran in the workflow's own worker, overlapping (each takes 300 ms).
      expect(reads).toHaveLength(4);
      const seconds = (time: { seconds: number; nanos: number }) => time.seconds + time.nanos / 1e9;
      const firstDone = Math.min(...reads.map((marker) => seconds(marker.complete_time)));
      for (const marker of reads) expect(seconds(marker.original_schedule_time)).toBeLessThan(firstDone);
      expect(answeredInOrder((model.requests[1] as Requests[number]).messages)).toEqual(['l1', 'l2', 'l3', 'l4']);
    } finally {
      await model.close();
    }
  });

  it('answers reads run as local activities in request order', async () => {
    const { handle, model } = await startScriptedRun(harness, {
      workspace: await readsWorkspace(),
      script: [{ tool_calls: fourReads }, { content: 'read all four' }],
    });
    try {
      await handle.result();
      expect(
        (await eventsOf(handle)).filter(
          (event) => event.activityTaskScheduledEventAttributes?.activityType?.name === 'ReadFile',
        ),
      ).toEqual([]);
      expect(answeredInOrder((model.requests[1] as Requests[number]).messages)).toEqual(['r1', 'g1', 'r2', 's1']);
      await saveHistory('fan-out-local', handle);
    } finally {
      await model.close();
    }
  });

  it('schedules four reads of a workspace on another host before any completes and answers them in request order', async () => {
    const toolQueue = `${harness.taskQueue}@elsewhere`;
    const elsewhere = await startHarness(
      { OPENAI_API_KEY: 'test-key' },
      { toolTaskQueue: toolQueue, store: harness.store },
    );
    const { handle, model } = await startScriptedRun(harness, {
      workspace: await readsWorkspace(),
      input: { toolTaskQueue: toolQueue },
      script: [{ tool_calls: fourReads }, { content: 'read all four' }],
    });
    try {
      await handle.result();
      const events = await eventsOf(handle);
      const tools = new Set(['ReadFile', 'Glob', 'Grep']);
      const scheduled = events.filter((event) =>
        tools.has(event.activityTaskScheduledEventAttributes?.activityType?.name ?? ''),
      );
      const firstToolCompletion = events.findIndex(
        (event) => event.activityTaskCompletedEventAttributes && Number(event.eventId) > Number(scheduled[0]!.eventId),
      );
      // Each read is tried locally first and goes to the other host when its local attempt answers `elsewhere`: the
      // four are scheduled in the order those answers come back, and answered in request order whatever it is.
      expect(scheduled.map((event) => event.activityTaskScheduledEventAttributes!.activityType!.name).sort()).toEqual([
        'Glob',
        'Grep',
        'ReadFile',
        'ReadFile',
      ]);
      for (const event of scheduled) expect(events.indexOf(event)).toBeLessThan(firstToolCompletion);
      expect(answeredInOrder((model.requests[1] as Requests[number]).messages)).toEqual(['r1', 'g1', 'r2', 's1']);
      await saveHistory('fan-out', handle);
    } finally {
      await model.close();
      await elsewhere.close();
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
      script: [
        { tool_calls: [{ id: 'g', name: 'Grep', arguments: { pattern: 'FALLBACK_ME' } }] },
        { content: 'found it' },
      ],
    });
    try {
      await handle.result();
      const envelope = toolResult((model.requests[1] as Requests[number]).messages, 'g');
      expect(envelope.status).toBe('success');
      expect(envelope.data.fallback).toMatchObject({
        served_by: 'Bash',
        primary: 'Grep',
        reason: 'primary_failed:INTERNAL_ERROR',
      });
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
      {
        tool_calls: [
          { id: 'edit', name: 'EditFile', arguments: { path: 'plan.txt', old_string: 'draft', new_string: 'final' } },
        ],
      }, // 14
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
          await handle.executeUpdate(approveToolCall, {
            args: [{ tool_call_id: 'push1', decision: 'approve', remember: true }],
          });
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
    const read = (id: string): ScriptTurn => ({
      tool_calls: [{ id, name: 'ReadFile', arguments: { path: 'big.txt' } }],
    });
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

describe('approvals', () => {
  it('are bound to the call: a later command under an approved id is asked about again', async () => {
    const workspace = await workspaceFrom();
    const { handle, model } = await startScriptedRun(harness, {
      workspace,
      input: { askPolicy: 'wait' },
      script: [
        { tool_calls: [{ id: 'call_1', name: 'Bash', arguments: { command: 'rm -rf build' } }] },
        { tool_calls: [{ id: 'call_1', name: 'Bash', arguments: { command: 'rm -rf docs' } }] },
        { content: 'done' },
      ],
    });
    const pendingFor = (command: string) =>
      waitFor(async () => {
        const pending = (await handle.query(stateQuery)).pendingApprovals[0];
        return pending?.command === command ? pending : undefined;
      }, `a pending approval for ${command}`);
    try {
      await mkdir(join(workspace, 'build'));
      await mkdir(join(workspace, 'docs'));
      expect(await pendingFor('rm -rf build')).toMatchObject({ callId: 'call_1' });
      await handle.executeUpdate(approveToolCall, { args: [{ tool_call_id: 'call_1', decision: 'approve' }] });
      // The same id, another command: it waits for its own decision instead of running on the first one's.
      expect(await pendingFor('rm -rf docs')).toMatchObject({ callId: 'call_1', level: 'destructive' });
      await handle.executeUpdate(approveToolCall, {
        args: [{ tool_call_id: 'call_1', decision: 'reject', reason: 'keep the docs' }],
      });
      expect(await handle.result()).toMatchObject({ status: 'completed', answer: 'done' });
      const requests = model.requests as Requests;
      const last = requests[2]!.messages.at(-1)!;
      expect(last).toMatchObject({ role: 'tool', tool_call_id: 'call_1' });
      expect(JSON.parse(last.content as string).error).toMatchObject({
        code: 'PERMISSION_DENIED',
        details: { rejection_reason: 'keep the docs' },
      });
      await expect(stat(join(workspace, 'build'))).rejects.toThrow();
      expect((await stat(join(workspace, 'docs'))).isDirectory()).toBe(true);
    } finally {
      await model.close();
    }
  });
});

describe('a request too long for the model', () => {
  it('compacts the transcript and makes the call again', async () => {
    const workspace = await workspaceFrom();
    await writeFile(join(workspace, 'big.txt'), 'lorem ipsum dolor sit amet '.repeat(200));
    const read = (id: string): ScriptTurn => ({
      tool_calls: [{ id, name: 'ReadFile', arguments: { path: 'big.txt' } }],
    });
    const tooLong = {
      status: 400,
      body: {
        error: {
          message: "This model's maximum context length is 8192 tokens.",
          type: 'invalid_request_error',
          code: 'context_length_exceeded',
        },
      },
    };
    const { handle, model } = await startScriptedRun(harness, {
      workspace,
      script: [
        read('r1'),
        read('r2'),
        read('r3'),
        read('r4'),
        read('r5'),
        { error: tooLong },
        { content: 'SUMMARY: read big.txt five times.' },
        { content: 'finished after the rejection' },
      ],
    });
    try {
      const result = await handle.result();
      expect(result.answer).toBe('finished after the rejection');
      const requests = model.requests as Requests;
      expect(requests[6]!.tools ?? []).toEqual([]);
      expect(requests[6]!.messages[1]!.content).toContain('The history to summarise');
      const after = requests[7]!.messages;
      expect(after[2]!.content).toContain('SUMMARY: read big.txt five times.');
      expect(after.some((message) => message.role === 'tool' && message.tool_call_id === 'r1')).toBe(false);
      const state = await handle.query(stateQuery);
      expect(state.progress.some((entry) => entry.text.startsWith('compacted '))).toBe(true);
    } finally {
      await model.close();
    }
  });
});

describe('cancellation', () => {
  it('ends a running command within seconds when the run is cancelled', async () => {
    const workspace = await workspaceFrom();
    const token = uniqueSleepSeconds();
    const { handle, model } = await startScriptedRun(harness, {
      workspace,
      input: { askPolicy: 'approve' },
      script: [{ tool_calls: [{ name: 'Bash', arguments: { command: `exec sleep ${token}` } }] }],
    });
    try {
      const running = async (): Promise<number> => (await hostPidsRunning(`sleep\0${token}`)).length;
      await waitFor(async () => ((await running()) > 0 ? true : undefined), 'the command to start');
      await handle.cancel();
      const failure = await handle.result().catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(WorkflowFailedError);
      expect((await handle.describe()).status.name).toBe('CANCELLED');
      await waitFor(async () => ((await running()) === 0 ? true : undefined), 'the command to end', {
        timeoutMs: 10_000,
      });
    } finally {
      await model.close();
    }
  });
});

describe('many hosts', () => {
  it('runs each run’s tools on the worker that owns its workspace', async () => {
    const suffix = randomBytes(3).toString('hex');
    const shared = `shared-${suffix}`;
    const hostA = await startHarness(
      { OPENAI_API_KEY: 'k' },
      { taskQueue: shared, toolTaskQueue: `${shared}@host-a`, identity: `host-a-${suffix}` },
    );
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
              {
                tool_calls: [
                  { name: 'ReadFile', arguments: { path: 'owner.txt' } },
                  { name: 'Glob', arguments: { pattern: '*' } },
                ],
              },
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
        // Who ran each tool call: the worker that started its activity, or, for a read run as a local activity on
        // the workflow's own worker, the worker that completed the workflow task recording it.
        const identities = new Map<string, string>();
        for (const event of events) {
          const started = event.activityTaskStartedEventAttributes;
          if (started) identities.set(String(started.scheduledEventId), started.identity ?? '');
          const completed = event.workflowTaskCompletedEventAttributes;
          if (completed) identities.set(`task ${String(event.eventId)}`, completed.identity ?? '');
        }
        const ranBy: string[] = [];
        for (const event of events) {
          const scheduled = event.activityTaskScheduledEventAttributes;
          if (scheduled && ['ReadFile', 'Glob', 'Bash'].includes(scheduled.activityType?.name ?? '')) {
            expect(scheduled.taskQueue?.name).toBe(`${shared}@host-${host}`);
            ranBy.push(identities.get(String(event.eventId)) ?? '');
          }
          const marker = event.markerRecordedEventAttributes;
          const data = marker?.details?.data?.payloads?.[0]?.data;
          const type = data
            ? (JSON.parse(Buffer.from(data).toString('utf8')) as { activity_type?: string }).activity_type
            : undefined;
          const result = marker?.details?.result?.payloads?.[0]?.data;
          // A read tried on a worker that does not own the workspace answered `elsewhere` and ran on the right host.
          const elsewhere = result?.length ? Buffer.from(result).toString('utf8').includes('"elsewhere":true') : false;
          if (marker && !elsewhere && ['ReadFile', 'Glob'].includes(type ?? '')) {
            ranBy.push(identities.get(`task ${String(marker.workflowTaskCompletedEventId)}`) ?? '');
          }
        }
        expect(ranBy).toEqual([`host-${host}-${suffix}`, `host-${host}-${suffix}`, `host-${host}-${suffix}`]);
      }
    } finally {
      await hostA.close();
      await hostB.close();
    }
  });
});
