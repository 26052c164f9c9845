// Long runs on default server limits: history stays flat per step because transcripts, tool results and huge
// arguments live in the content store; continue-as-new happens whenever it is due and carries keys, not content.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ScriptTurn } from '../../src/scripted-model/server.js';
import type { Harness } from '../support/harness.js';
import { cliRunner } from '../support/cli.js';
import { runtimeWarnings, startHarness, startScriptedRun, toolResult, workspaceFrom } from '../support/harness.js';
import { runStoreScenarios } from '../support/store-scenarios.js';
import { bytesPerStep, chainHistories, meanBytes } from '../support/history-size.js';
import { fileOf } from '../support/store-scenarios.js';

let harness: Harness;

beforeAll(async () => {
  harness = await startHarness();
});

afterAll(async () => {
  await harness?.close();
});

const SUMMARY = 'Read the files one by one; nothing is wrong with them so far.';

describe('long runs', () => {
  it(
    'finishes 1,000 steps with history per step flat, compacting and continuing as new on the way',
    { timeout: 600_000 },
    async () => {
      const workspace = await workspaceFrom();
      await mkdir(join(workspace, 'files'));
      for (let index = 0; index < 10; index++)
        await writeFile(join(workspace, 'files', `f${index}.txt`), fileOf(`f${index}`, 4096));
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
        expect(result).toMatchObject({
          status: 'completed',
          steps,
          toolCalls: steps - 1,
          answer: 'All 999 reads done.',
        });
        // The model saw the last read's content (the transcript was rebuilt from the store every step).
        const last = model.requests.at(-1)!;
        expect(toolResult(last.messages, 'read_999').data.content).toContain('f8: the quick brown fox');
        expect(JSON.stringify(last.messages)).toContain(SUMMARY);

        const histories = await chainHistories(harness.client, handle.workflowId);
        expect(histories.length).toBeGreaterThanOrEqual(2);
        const { perStep } = bytesPerStep(histories);
        const early = meanBytes(perStep, 11, 30);
        const late = meanBytes(perStep, 981, 1000);
        expect(late / early, `bytes per step: ${early.toFixed(0)} early, ${late.toFixed(0)} late`).toBeLessThanOrEqual(
          1.5,
        );
        expect(late).toBeLessThan(8_000);
        expect(runtimeWarnings.filter((warning) => warning.includes('TMPRL1103'))).toEqual([]);

        // The operator commands read the long chain's history in pages (no 4 MB gRPC limit in sight).
        const cli = cliRunner(harness);
        const replay = await cli(['replay', handle.workflowId, '--json'], harness.storeEnv);
        expect(replay.exitCode, replay.stderr).toBe(0);
        expect(JSON.parse(replay.stdout)).toMatchObject({ deterministic: true });
        const history = await cli(['history', handle.workflowId, '--json'], harness.storeEnv);
        expect(history.exitCode, history.stderr).toBe(0);
        expect(JSON.parse(history.stdout)).toMatchObject({ status: 'completed' });
      } finally {
        await model.close();
      }
    },
  );

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

runStoreScenarios('directory store', () => harness);
