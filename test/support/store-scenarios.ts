// The store scenarios every content store must pass end to end (a real worker, a real server): huge arguments,
// continue-as-new chains, the whole transcript readable from the store at the end.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { TestContext } from 'vitest';
import { describe, expect, it } from 'vitest';
import { createTranscriptStore } from '../../src/activities/transcript-store.js';
import { transcriptQuery } from '../../src/protocol/run-messages.js';
import type { Harness } from './harness.js';
import { startScriptedRun, toolResult, workspaceFrom } from './harness.js';
import { chainHistories } from './history-size.js';

/** A text file of `bytes` bytes whose lines say which file it is. */
export function fileOf(name: string, bytes: number): string {
  const line = `${name}: the quick brown fox jumps over the lazy dog\n`;
  return line.repeat(Math.ceil(bytes / line.length)).slice(0, bytes);
}

export function runStoreScenarios(name: string, harnessOf: (context: TestContext) => Harness): void {
  describe(`payload edges and continue-as-new (${name})`, () => {
    it('writes a file from a 3 MB argument and shows the model its own call in full', async (context) => {
      const harness = harnessOf(context);
      const workspace = await workspaceFrom();
      const content = fileOf('large', 3 * 1024 * 1024);
      const { handle, model } = await startScriptedRun(harness, {
        workspace,
        script: [
          { tool_calls: [{ id: 'write', name: 'WriteFile', arguments: { path: 'large.txt', content } }] },
          { content: 'written' },
        ],
      });
      try {
        expect(await handle.result()).toMatchObject({ status: 'completed' });
        expect(await readFile(join(workspace, 'large.txt'), 'utf8')).toBe(content);
        const messages = model.requests[1]!.messages;
        const call = messages.find((message) => message.role === 'assistant')!;
        expect(call.role === 'assistant' && JSON.parse(call.tool_calls![0]!.function.arguments)).toEqual({
          path: 'large.txt',
          content,
        });
        expect(toolResult(messages, 'write').status).toBe('success');
      } finally {
        await model.close();
      }
    });

    it('continues as new after two 1 MB arguments', async (context) => {
      const harness = harnessOf(context);
      const workspace = await workspaceFrom();
      const first = fileOf('one', 1024 * 1024);
      const second = fileOf('two', 1024 * 1024);
      const { handle, model } = await startScriptedRun(harness, {
        workspace,
        input: { continueAsNewEverySteps: 1 },
        script: [
          { tool_calls: [{ name: 'WriteFile', arguments: { path: 'one.txt', content: first } }] },
          { tool_calls: [{ name: 'WriteFile', arguments: { path: 'two.txt', content: second } }] },
          { content: 'both written' },
        ],
      });
      try {
        expect(await handle.result()).toMatchObject({ status: 'completed', steps: 3, toolCalls: 2 });
        expect(await readFile(join(workspace, 'two.txt'), 'utf8')).toBe(second);
        expect(await chainHistories(harness.client, handle.workflowId)).toHaveLength(3);
      } finally {
        await model.close();
      }
    });

    it('continues as new every time it is due and carries the whole state through each run', async (context) => {
      const harness = harnessOf(context);
      const workspace = await workspaceFrom();
      await writeFile(join(workspace, 'notes.txt'), 'alpha\n');
      const { handle, model } = await startScriptedRun(harness, {
        workspace,
        input: { continueAsNewEverySteps: 2 },
        script: [
          { tool_calls: [{ id: 'read', name: 'ReadFile', arguments: { path: 'notes.txt' } }] },
          { tool_calls: [{ id: 'glob', name: 'Glob', arguments: { pattern: '*.txt' } }] },
          {
            tool_calls: [
              {
                id: 'edit',
                name: 'EditFile',
                arguments: { path: 'notes.txt', old_string: 'alpha', new_string: 'beta' },
              },
            ],
          },
          { tool_calls: [{ id: 'reread', name: 'ReadFile', arguments: { path: 'notes.txt' } }] },
          { tool_calls: [{ id: 'grep', name: 'Grep', arguments: { pattern: 'beta' } }] },
          { tool_calls: [{ id: 'again', name: 'ReadFile', arguments: { path: 'notes.txt' } }] },
          { content: 'notes say beta' },
        ],
      });
      try {
        const result = await handle.result();
        expect(result).toMatchObject({ status: 'completed', steps: 7, toolCalls: 6 });
        expect(result.usage.modelCalls).toBe(7);
        expect((await chainHistories(harness.client, handle.workflowId)).length).toBeGreaterThanOrEqual(3);
        // The edit in run 2 relied on the read in run 1 (read-before-write state carried across).
        const last = model.requests.at(-1)!.messages;
        expect(toolResult(last, 'edit').status).toBe('success');
        // The last request holds every earlier tool result, from every run of the chain.
        expect(last.filter((message) => message.role === 'tool').map((message) => message.tool_call_id)).toEqual([
          'read',
          'glob',
          'edit',
          'reread',
          'grep',
          'again',
        ]);
        const transcript = await handle.query(transcriptQuery);
        expect(await createTranscriptStore(harness.store).load(transcript)).toHaveLength(transcript.messages);
      } finally {
        await model.close();
      }
    });
  });
}
