// Long runs on default server limits: history stays flat per step because transcripts, tool results and huge
// arguments live in the content store; continue-as-new happens whenever it is due and carries keys, not content.
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTranscriptStore } from '../../src/activities/transcript-store.js';
import type { ScriptTurn } from '../../src/providers/scripted-server.js';
import { transcriptQuery } from '../../src/workflows/messages.js';
import type { Harness } from '../support/harness.js';
import { runtimeWarnings, startHarness, startScriptedRun, toolResult, workspaceFrom } from '../support/harness.js';
import { bytesPerStep, chainHistories, meanBytes } from '../support/history-size.js';

let harness: Harness;

beforeAll(async () => {
  harness = await startHarness();
});

afterAll(async () => {
  await harness?.close();
});

const SUMMARY = 'Read the files one by one; nothing is wrong with them so far.';

/** A 4 KB text file whose lines say which file it is. */
function fileOf(name: string, bytes: number): string {
  const line = `${name}: the quick brown fox jumps over the lazy dog\n`;
  return line.repeat(Math.ceil(bytes / line.length)).slice(0, bytes);
}

function runsOf(histories: unknown[][]): number {
  return histories.length;
}

describe('long runs', () => {
  it('finishes 1,000 steps with history per step flat, compacting and continuing as new on the way', { timeout: 600_000 }, async () => {
    const workspace = await workspaceFrom();
    await mkdir(join(workspace, 'files'));
    for (let index = 0; index < 10; index++) await writeFile(join(workspace, 'files', `f${index}.txt`), fileOf(`f${index}`, 4096));
    const steps = 1000;
    const script: ScriptTurn[] = Array.from({ length: steps - 1 }, (_, index) => ({
      tool_calls: [{ id: `read_${index + 1}`, name: 'ReadFile', arguments: { path: `files/f${index % 10}.txt` } }],
    }));
    script.push({ content: 'All 999 reads done.' });
    const { handle, model } = await startScriptedRun(harness, {
      script,
      workspace,
      input: { maxSteps: steps },
      server: { keepRequests: 2, compactionSummary: SUMMARY },
    });
    try {
      const result = await handle.result();
      expect(result).toMatchObject({ status: 'completed', steps, toolCalls: steps - 1, answer: 'All 999 reads done.' });
      // The model saw the last read's content (the transcript was rebuilt from the store every step).
      const last = model.requests.at(-1)!;
      expect(toolResult(last.messages, 'read_999').data.content).toContain('f8: the quick brown fox');
      expect(JSON.stringify(last.messages)).toContain(SUMMARY);

      const histories = await chainHistories(harness.client, handle.workflowId);
      expect(runsOf(histories)).toBeGreaterThanOrEqual(2);
      const { perStep } = bytesPerStep(histories);
      const early = meanBytes(perStep, 11, 30);
      const late = meanBytes(perStep, 981, 1000);
      expect(late / early, `bytes per step: ${early.toFixed(0)} early, ${late.toFixed(0)} late`).toBeLessThanOrEqual(1.5);
      expect(late).toBeLessThan(8_000);
      expect(runtimeWarnings.filter((warning) => warning.includes('TMPRL1103'))).toEqual([]);
    } finally {
      await model.close();
    }
  });

  it('reads 100 MB of tool output in 100 steps', { timeout: 300_000 }, async () => {
    const workspace = await workspaceFrom();
    await writeFile(join(workspace, 'big.txt'), fileOf('big', 1024 * 1024));
    const steps = 100;
    const script: ScriptTurn[] = Array.from({ length: steps - 1 }, (_, index) => ({
      tool_calls: [
        { id: `read_${index + 1}`, name: 'ReadFile', arguments: { path: 'big.txt' } },
        // Each step's output differs (the echo), so every megabyte is stored and spilled for real.
        { id: `cat_${index + 1}`, name: 'Bash', arguments: { command: `cat big.txt; echo step ${index + 1}` } },
      ],
    }));
    script.push({ content: 'Read it all.' });
    const { handle, model } = await startScriptedRun(harness, {
      script,
      workspace,
      input: { maxSteps: steps },
      server: { keepRequests: 2, compactionSummary: SUMMARY },
    });
    try {
      const result = await handle.result();
      expect(result).toMatchObject({ status: 'completed', steps, answer: 'Read it all.' });
      const spilled = toolResult(model.requests.at(-1)!.messages, `cat_${steps - 1}`);
      expect(spilled.data.full_output_path).toMatch(/^\.agent\/tool-output\//);
      // The full output is in the store as well as on the tool host's disk.
      const full = Buffer.from(await harness.store.get(spilled.data.full_output_key)).toString('utf8');
      expect(full.length).toBeGreaterThan(1024 * 1024);
      expect(full).toContain(`step ${steps - 1}`);
      expect(runtimeWarnings.filter((warning) => warning.includes('TMPRL1103'))).toEqual([]);
    } finally {
      await model.close();
    }
  });
});

describe('payload edges', () => {
  it('writes a file from a 3 MB argument and shows the model its own call in full', async () => {
    const workspace = await workspaceFrom();
    const content = fileOf('large', 3 * 1024 * 1024);
    const { handle, model } = await startScriptedRun(harness, {
      workspace,
      script: [{ tool_calls: [{ id: 'write', name: 'WriteFile', arguments: { path: 'large.txt', content } }] }, { content: 'written' }],
    });
    try {
      expect(await handle.result()).toMatchObject({ status: 'completed' });
      expect(await readFile(join(workspace, 'large.txt'), 'utf8')).toBe(content);
      const messages = model.requests[1]!.messages;
      const call = messages.find((message) => message.role === 'assistant')!;
      expect(call.role === 'assistant' && JSON.parse(call.tool_calls![0]!.function.arguments)).toEqual({ path: 'large.txt', content });
      expect(toolResult(messages, 'write').status).toBe('success');
    } finally {
      await model.close();
    }
  });

  it('continues as new after two 1 MB arguments', async () => {
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
      expect(runsOf(await chainHistories(harness.client, handle.workflowId))).toBe(3);
    } finally {
      await model.close();
    }
  });

  it('continues as new every time it is due and carries the whole state through each run', async () => {
    const workspace = await workspaceFrom();
    await writeFile(join(workspace, 'notes.txt'), 'alpha\n');
    const { handle, model } = await startScriptedRun(harness, {
      workspace,
      input: { continueAsNewEverySteps: 2 },
      script: [
        { tool_calls: [{ id: 'read', name: 'ReadFile', arguments: { path: 'notes.txt' } }] },
        { tool_calls: [{ id: 'glob', name: 'Glob', arguments: { pattern: '*.txt' } }] },
        { tool_calls: [{ id: 'edit', name: 'EditFile', arguments: { path: 'notes.txt', old_string: 'alpha', new_string: 'beta' } }] },
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
      expect(runsOf(await chainHistories(harness.client, handle.workflowId))).toBeGreaterThanOrEqual(3);
      // The edit in run 2 relied on the read in run 1 (read-before-write state carried across).
      const last = model.requests.at(-1)!.messages;
      expect(toolResult(last, 'edit').status).toBe('success');
      // The last request holds every earlier tool result, from every run of the chain.
      expect(last.filter((message) => message.role === 'tool').map((message) => message.tool_call_id)).toEqual(['read', 'glob', 'edit', 'reread', 'grep', 'again']);
      const transcript = await handle.query(transcriptQuery);
      expect(await createTranscriptStore(harness.store).load(transcript)).toHaveLength(transcript.messages);
    } finally {
      await model.close();
    }
  });
});
