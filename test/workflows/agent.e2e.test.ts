// End-to-end runs on the real Temporal dev server, through the scripted model over HTTP and the real openai client.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { WorkflowFailedError } from '@temporalio/client';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ScriptTurn } from '../../src/scripted-model/server.js';
import { stateQuery, transcriptQuery } from '../../src/protocol/run-messages.js';
import { createTranscriptStore } from '../../src/activities/transcript-store.js';
import type { Harness } from '../support/harness.js';
import {
  assertValidChatRequest,
  startHarness,
  startScriptedRun,
  toolResult,
  workspaceFrom,
} from '../support/harness.js';
import { saveHistory } from '../support/histories.js';
import { waitFor } from '../support/wait.js';

const demo = fileURLToPath(new URL('../../examples/demo/', import.meta.url));

let harness: Harness;
beforeAll(async () => {
  harness = await startHarness();
});
afterAll(async () => {
  await harness?.close();
});

describe('agentWorkflow end to end', () => {
  it('runs the demo: explores in parallel, fixes the bug, runs the tests, answers', async () => {
    const workspace = await workspaceFrom(join(demo, 'project'));
    const script = JSON.parse(await readFile(join(demo, 'script.json'), 'utf8')) as ScriptTurn[];
    const { handle, model } = await startScriptedRun(harness, {
      script,
      workspace,
      workflowId: `agent-demo-${Date.now()}`,
    });
    try {
      const result = await handle.result();
      expect(result.status).toBe('completed');
      expect(result.answer).toContain('loop now starts at 0');
      expect(result.steps).toBe(6);
      expect(result.toolCalls).toBe(8);
      expect(model.requests).toHaveLength(6);
      for (const request of model.requests) assertValidChatRequest(request as never);

      // The failing test run is seen by the model before the fix, the passing one after it.
      const last = model.requests.at(-1)! as { messages: never[] };
      expect(toolResult(last.messages, 'call_test_before').data.exit_code).not.toBe(0);
      expect(toolResult(last.messages, 'call_fix').status).toBe('success');
      expect(toolResult(last.messages, 'call_test_after').data.exit_code).toBe(0);
      // The single-quoted, trailing-comma argument string was repaired and executed.
      const repaired = toolResult(last.messages, 'call_test');
      expect(repaired.status).toBe('success');
      expect(repaired.context.repairs.map((repair: { kind: string }) => repair.kind)).toContain('single_quotes');

      const tests = await execa('node', ['--test'], { cwd: workspace, reject: false });
      expect(tests.exitCode).toBe(0);
      // The whole transcript, final answer included, is in the store under the head key the run reports.
      const transcript = await handle.query(transcriptQuery);
      const messages = await createTranscriptStore(harness.store).load(transcript);
      expect(messages).toHaveLength(transcript.messages);
      expect(messages.at(-1)).toMatchObject({ role: 'assistant', content: result.answer });
      await saveHistory('demo', handle);
    } finally {
      await model.close();
    }
  });

  it('turns an unknown tool and malformed arguments into envelopes the model sees in its next request', async () => {
    const workspace = await workspaceFrom();
    const script: ScriptTurn[] = [
      {
        tool_calls: [
          { id: 'a', name: 'DeleteEverything', arguments: '{}' },
          { id: 'b', name: 'ReadFile', arguments: '{"path": ' },
          { id: 'c', name: 'read_file', arguments: '```json\n{"path": "missing.txt"}\n```' },
        ],
      },
      { content: 'done' },
    ];
    const { handle, model } = await startScriptedRun(harness, { script, workspace });
    try {
      const result = await handle.result();
      expect(result.status).toBe('completed');
      const messages = (model.requests[1] as { messages: never[] }).messages;
      assertValidChatRequest(model.requests[1] as never);
      const unknown = toolResult(messages, 'a');
      expect(unknown.error.code).toBe('NOT_FOUND');
      expect(unknown.error.details.available_tools).toContain('ReadFile');
      expect(toolResult(messages, 'b').error.code).toMatch(/INVALID_PARAM|NOT_FOUND/);
      const renamed = toolResult(messages, 'c');
      expect(renamed.error.code).toBe('NOT_FOUND');
      expect(renamed.context.repairs).toEqual(
        expect.arrayContaining([expect.objectContaining({ stage: 'name', from: 'read_file', to: 'ReadFile' })]),
      );
      await saveHistory('envelopes', handle);
    } finally {
      await model.close();
    }
  });

  it('retries a rate-limited model call and fails the run on a non-retryable error', async () => {
    const workspace = await workspaceFrom();
    const retried = await startScriptedRun(harness, {
      script: [{ error: { status: 429, headers: { 'retry-after': '1' } } }, { content: 'after the retry' }],
      workspace,
    });
    try {
      const result = await retried.handle.result();
      expect(result.answer).toBe('after the retry');
      expect(retried.model.requests).toHaveLength(2);
    } finally {
      await retried.model.close();
    }

    const rejected = await startScriptedRun(harness, { script: [{ error: { status: 401 } }], workspace });
    try {
      const failure = await rejected.handle.result().catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(WorkflowFailedError);
      expect(rejected.model.requests).toHaveLength(1);
      const view = await rejected.handle.query(stateQuery);
      expect(view.status).toBe('failed');
      expect(view.error).toMatch(/Model call failed/);
    } finally {
      await rejected.model.close();
    }
  });

  it('a bug in workflow code fails the workflow task, which Temporal retries, and leaves the run open', async () => {
    const workspace = await workspaceFrom();
    // Input the workflow cannot handle (a client bypassing the CLI's checks): its code throws a TypeError.
    const { handle, model } = await startScriptedRun(harness, {
      script: [{ content: 'never asked' }],
      workspace,
      input: { fallbackSelections: 'not a list' as never },
    });
    try {
      const failedTask = await waitFor(
        async () =>
          ((await handle.fetchHistory()).events ?? [])
            .map((event) => event.workflowTaskFailedEventAttributes?.failure?.message)
            .findLast((message) => message),
        'a failed workflow task',
        { timeoutMs: 20_000, intervalMs: 200 },
      );
      expect(failedTask).toMatch(/not a function|map/);
      expect((await handle.describe()).status.name).toBe('RUNNING');
      expect(model.requests).toHaveLength(0);
    } finally {
      await handle.terminate('test over').catch(() => undefined);
      await model.close();
    }
  });

  it('moves down the model chain when a model fails for good', async () => {
    const workspace = await workspaceFrom();
    const { handle, model } = await startScriptedRun(harness, {
      workspace,
      script: [
        { error: { status: 404, body: { error: { message: 'The model primary-model does not exist' } } } },
        { content: 'answered by the backup' },
      ],
      input: { selection: { model: 'primary-model' }, fallbackSelections: [{ model: 'backup-model' }] },
    });
    try {
      const result = await handle.result();
      expect(result).toMatchObject({ status: 'completed', answer: 'answered by the backup' });
      expect(model.requests.map((request) => (request as { model: string }).model)).toEqual([
        'primary-model',
        'backup-model',
      ]);
      const view = await handle.query(stateQuery);
      expect(
        view.progress.some((entry) => /primary-model failed .*falling back to backup-model/.test(entry.text)),
      ).toBe(true);
    } finally {
      await model.close();
    }
  });

  it('stops at the step limit with a failed status when the model calls tools even on its last step', async () => {
    const workspace = await workspaceFrom();
    const loop: ScriptTurn = { tool_calls: [{ name: 'Glob', arguments: { pattern: '*' } }] };
    const { handle, model } = await startScriptedRun(harness, {
      script: [loop, loop, loop],
      workspace,
      input: { maxSteps: 2 },
    });
    try {
      const failure = await handle.result().catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(WorkflowFailedError);
      expect(((failure as WorkflowFailedError).cause as Error).message).toMatch(/step limit \(2\)/);
      // The last step asked for an answer: a model that honours tool choice would not have called a tool.
      expect(model.requests.map((request) => (request as { tool_choice?: unknown }).tool_choice)).toEqual([
        'auto',
        'none',
      ]);
    } finally {
      await model.close();
    }
  });
});

describe("the worker's API key", () => {
  it('is not sent to a base URL a run names that the worker was not configured for', async () => {
    const keyed = await startHarness({ OPENAI_API_KEY: 'sk-worker-own-key' });
    try {
      const { handle, model } = await startScriptedRun(keyed, {
        workspace: await workspaceFrom(),
        script: [{ content: 'answered without the key' }],
      });
      try {
        expect(await handle.result()).toMatchObject({ status: 'completed', answer: 'answered without the key' });
        expect(model.authorizations).toHaveLength(1);
        expect(model.authorizations[0] ?? '').not.toContain('sk-worker-own-key');
      } finally {
        await model.close();
      }
    } finally {
      await keyed.close();
    }
  });
});
