// Hostile model output through real runs: a real Temporal server and worker, the scripted model over HTTP through the
// openai client. Generated turns are played a few per run; every run completes in bounded time and every call of
// every turn is answered with a valid envelope in the transcript the model receives. The 1,000-turn version is the
// soak scenario soak/fuzz.ts. A 1 MB WriteFile streamed a token at a time finishes well within seconds.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Harness } from '../support/harness.js';
import { startHarness, startScriptedRun, workspaceFrom } from '../support/harness.js';
import { hostileTurnArbitrary } from '../support/hostile-turns.js';
import { playHostileRun } from '../support/hostile-runs.js';
import { fileContent, MEGABYTE } from '../support/large-argument-layers.js';

const RUNS = 4;
const TURNS_PER_RUN = 20;
const RUN_TIMEOUT_MS = 60_000;

let harness: Harness;
beforeAll(async () => {
  harness = await startHarness();
});
afterAll(async () => {
  await harness?.close();
});

describe('hostile model output in real runs', () => {
  it(`${RUNS * TURNS_PER_RUN} generated turns: every run completes and every call is answered with an envelope`, async () => {
    const turns = fc.sample(hostileTurnArbitrary({ withCalls: true, maxCalls: 40 }), {
      numRuns: RUNS * TURNS_PER_RUN,
      seed: Number(process.env.FUZZ_SEED ?? 7_2026),
    });
    for (let run = 0; run < RUNS; run++) {
      const played = turns.slice(run * TURNS_PER_RUN, (run + 1) * TURNS_PER_RUN);
      const outcome = await playHostileRun(
        (options) => startScriptedRun(harness, options),
        await workspaceFrom(),
        played,
        RUN_TIMEOUT_MS,
      );
      expect(outcome.problems, `run ${run + 1}`).toEqual([]);
      expect(outcome.ending).toBe('completed');
      expect(outcome.envelopes).toBe(outcome.calls);
    }
  }, 300_000);

  it('writes a 1 MB file whose content streams 16 characters a delta in under 5 seconds', async () => {
    const workspace = await workspaceFrom();
    const content = fileContent(MEGABYTE);
    const started = Date.now();
    const { handle, model } = await startScriptedRun(harness, {
      workspace,
      input: { askPolicy: 'approve' },
      server: { keepRequests: 1 },
      script: [
        { tool_calls: [{ id: 'big', name: 'WriteFile', arguments: { path: 'big.txt', content } }], chunk_size: 16 },
        { content: 'written' },
      ],
    });
    try {
      expect(await handle.result()).toMatchObject({ status: 'completed', answer: 'written' });
      // 4-character deltas (260,000 events) through both SDKs: test/workflows/large-argument.e2e.test.ts.
      expect(Date.now() - started).toBeLessThan(5_000);
      expect(await readFile(join(workspace, 'big.txt'), 'utf8')).toBe(content);
    } finally {
      await model.close();
    }
  }, 120_000);
});
