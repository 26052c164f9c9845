// Conversations against a real server and worker: a session run answers, waits for the next request, takes each
// follow-up as a steering message, closes when idle, and continues as new while waiting, so a long conversation on
// one task id keeps its history per request flat.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@temporalio/client';
import type { ChatMessage } from '../../src/protocol/model.js';
import { sendMessage } from '../../src/protocol/run-control.js';
import type { AgentStateView } from '../../src/protocol/run-messages.js';
import { stateQuery } from '../../src/protocol/run-messages.js';
import { REQUESTS_PER_RUN } from '../../src/core/run/session.js';
import type { Harness } from '../support/harness.js';
import { startHarness, startScriptedRun, workspaceFrom } from '../support/harness.js';
import { bytesPerStep, chainHistories, meanBytes } from '../support/history-size.js';
import { waitFor } from '../support/wait.js';

let harness: Harness;

beforeAll(async () => {
  harness = await startHarness();
});

afterAll(async () => {
  await harness?.close();
});

/** The run's view once it answered its `count`-th request and waits for the next. */
async function waitingAfter(client: Client, workflowId: string, count: number): Promise<AgentStateView> {
  return await waitFor(async () => {
    const view = await client.workflow.getHandle(workflowId).query(stateQuery);
    return view.status === 'waiting_input' && view.conversation?.count === count ? view : undefined;
  }, `request ${count} answered`);
}

function userTexts(body: unknown): string[] {
  return (body as { messages: ChatMessage[] }).messages
    .filter((message) => message.role === 'user')
    .map((message) => String(message.content));
}

describe('sessions', () => {
  it('waits after an answer, takes the next request with the whole conversation, and closes when idle', async () => {
    const workspace = await workspaceFrom();
    const { handle, model } = await startScriptedRun(harness, {
      workspace,
      task: 'What is 2 + 2?',
      script: [{ content: 'Four.' }, { content: 'Eight.' }],
      input: { session: { idleMs: 3000 }, maxSteps: 1 },
    });
    try {
      const first = await waitingAfter(harness.client, handle.workflowId, 1);
      expect(first.answer).toBe('Four.');
      const receipt = await handle.executeUpdate(sendMessage, { args: [{ id: 'next-1', text: 'And times two?' }] });
      expect(receipt).toMatchObject({ id: 'next-1', kind: 'message', status: 'waiting_input', queued: 1 });
      // maxSteps 1 applies per request: the second request gets its own step.
      const second = await waitingAfter(harness.client, handle.workflowId, 2);
      expect(second.answer).toBe('Eight.');
      expect(second.conversation?.requests.map(({ n, step, text }) => ({ n, step, text }))).toEqual([
        { n: 1, step: 1, text: 'What is 2 + 2?' },
        { n: 2, step: 2, text: 'And times two?' },
      ]);
      expect(userTexts(model.requests[1])).toEqual(['What is 2 + 2?', 'And times two?']);
      expect(JSON.stringify((model.requests[1] as { messages: ChatMessage[] }).messages)).toContain('Four.');
      // Nothing more within the idle window: the run completes with its last answer.
      const result = await handle.result();
      expect(result).toMatchObject({ status: 'completed', answer: 'Eight.', steps: 2 });
      const view = await handle.query(stateQuery);
      expect(view.progress.at(-1)?.text).toMatch(/no request for 3s: the conversation is closed/);
    } finally {
      await model.close();
    }
  }, 60_000);

  it('a waiting session can be cancelled', async () => {
    const workspace = await workspaceFrom();
    const { handle, model } = await startScriptedRun(harness, {
      workspace,
      script: [{ content: 'Done.' }],
      input: { session: { idleMs: 600_000 } },
    });
    try {
      await waitingAfter(harness.client, handle.workflowId, 1);
      await handle.cancel();
      await expect(handle.result()).rejects.toThrow();
      expect((await handle.describe()).status.name).toBe('CANCELLED');
    } finally {
      await model.close();
    }
  }, 60_000);

  it('keeps history per request flat over 50 follow-up requests on one task id', { timeout: 180_000 }, async () => {
    const workspace = await workspaceFrom();
    const turns = 50;
    const { handle, model } = await startScriptedRun(harness, {
      workspace,
      script: Array.from({ length: turns }, (_, index) => ({ content: `Answer ${index + 1}.` })),
      input: { session: { idleMs: 600_000 } },
      server: { keepRequests: 2 },
    });
    const started = Date.now();
    try {
      await waitingAfter(harness.client, handle.workflowId, 1);
      for (let request = 2; request <= turns; request++) {
        await harness.client.workflow
          .getHandle(handle.workflowId)
          .executeUpdate(sendMessage, { args: [{ id: `request-${request}`, text: `Request ${request}, please.` }] });
        await waitingAfter(harness.client, handle.workflowId, request);
      }
      const elapsed = Date.now() - started;
      const last = model.requests.at(-1) as { messages: ChatMessage[] };
      // The last request saw the whole conversation: every request and every answer before it.
      expect(userTexts(last)).toHaveLength(turns);
      expect(JSON.stringify(last.messages)).toContain('Answer 49.');

      const histories = await chainHistories(harness.client, handle.workflowId);
      // Continued as new while waiting, every REQUESTS_PER_RUN requests.
      expect(histories.length).toBe(Math.ceil(turns / REQUESTS_PER_RUN));
      const { perStep, runEdges } = bytesPerStep(histories);
      const early = meanBytes(perStep, 1, 10);
      const late = meanBytes(perStep, turns - 9, turns);
      const edges = runEdges.map((bytes) => `${(bytes / 1024).toFixed(1)} KiB`).join(', ');
      const events = histories.map((run) => run.length).join(', ');
      console.log(
        `50 requests in ${(elapsed / 1000).toFixed(1)} s: ${early.toFixed(0)} history bytes a request (1-10), ` +
          `${late.toFixed(0)} (41-50); runs' events ${events}; start + continue-as-new per run ${edges}`,
      );
      expect(late / early, `bytes per request: ${early.toFixed(0)} early, ${late.toFixed(0)} late`).toBeLessThan(1.25);
      // What a run starts and continues with is the state: keys and recent bookkeeping, never the conversation's
      // content, so it levels off rather than grow with every request.
      expect(Math.max(...runEdges)).toBeLessThan(40 * 1024);
      await handle.cancel();
    } finally {
      await model.close();
    }
  });
});
