// A read tried in the workflow's own worker holds that worker's workflow task open while it runs: a read that takes
// long (a Grep over a huge tree) is stopped at its bound and runs again as an ordinary activity, so no workflow task
// lasts as long as the read, and the run answers queries meanwhile. A quick read stays local.
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import proto from '@temporalio/proto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChatMessage } from '../../src/protocol/model.js';
import { LOCAL_READ_BOUND_MS } from '../../src/protocol/tool-activity.js';
import type { Harness } from '../support/harness.js';
import { startHarness, startScriptedRun, workspaceFrom } from '../support/harness.js';
import { historyTimings } from '../support/task-timings.js';
import { toolResult } from '../support/tool-result.js';

// Far longer than the bound, so only a read moved off the workflow task can finish without holding it.
const SLOW_READ_MS = 3_000;
const { EventType } = proto.temporal.api.enums.v1;

let harness: Harness;
const attempts: { pattern: string; aborted: boolean }[] = [];

beforeAll(async () => {
  harness = await startHarness(
    { OPENAI_API_KEY: 'test-key' },
    {
      executors: {
        // The real Grep, slowed down for pattern `slow`; it stops when its activity is cancelled, as rg is killed.
        Grep: async (context) => {
          const pattern = String(context.request.input.pattern);
          const attempt = { pattern, aborted: false };
          attempts.push(attempt);
          if (pattern === 'slow') {
            await new Promise<void>((resolve) => {
              const timer = setTimeout(resolve, SLOW_READ_MS);
              context.signal.addEventListener('abort', () => {
                attempt.aborted = true;
                clearTimeout(timer);
                resolve();
              });
            });
            if (context.signal.aborted) throw context.signal.reason;
          }
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

describe('a read in the workflow task is bounded', () => {
  it('moves a read that outlasts its bound to an ordinary activity; a quick one stays local', async () => {
    const workspace = await workspaceFrom();
    await writeFile(path.join(workspace, 'notes.txt'), 'slow and quick\n');
    const { handle, model } = await startScriptedRun(harness, {
      workspace,
      script: [
        {
          tool_calls: [
            { id: 'slow', name: 'Grep', arguments: { pattern: 'slow' } },
            { id: 'quick', name: 'Grep', arguments: { pattern: 'quick' } },
          ],
        },
        { content: 'searched' },
      ],
    });
    try {
      // While the slow read runs, the run answers a query: no workflow task is held open by it.
      await expect
        .poll(() => attempts.filter((attempt) => attempt.pattern === 'slow').length, { timeout: 30_000 })
        .toBe(2);
      const queried = performance.now();
      await handle.query('state');
      expect(performance.now() - queried).toBeLessThan(SLOW_READ_MS / 2);
      expect(await handle.result()).toMatchObject({ status: 'completed', answer: 'searched' });

      const messages = (model.requests.at(-1) as { messages: ChatMessage[] }).messages;
      expect(toolResult(messages, 'slow')).toMatchObject({ status: 'success' });
      expect(toolResult(messages, 'quick')).toMatchObject({ status: 'success' });
      // The slow read: stopped in the workflow's worker, then made once more as an activity; the quick one: local only.
      expect(attempts.filter((attempt) => attempt.pattern === 'slow')).toEqual([
        { pattern: 'slow', aborted: true },
        { pattern: 'slow', aborted: false },
      ]);
      expect(attempts.filter((attempt) => attempt.pattern === 'quick')).toHaveLength(1);
      const events = (await handle.fetchHistory()).events ?? [];
      const scheduled = events.filter((event) => event.eventType === EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED);
      expect(scheduled.map((event) => event.activityTaskScheduledEventAttributes?.activityType?.name)).toContain(
        'Grep',
      );
      expect(
        scheduled.filter((event) => event.activityTaskScheduledEventAttributes?.activityType?.name === 'Grep'),
      ).toHaveLength(1);
      // No workflow task lasted as long as the slow read (the bound plus a loaded machine's slack).
      expect(historyTimings(events).longestWorkflowTaskMs).toBeLessThan(LOCAL_READ_BOUND_MS + 1_500);
    } finally {
      await model.close();
    }
  });
});
