// Replays the saved histories of passing runs against the current workflow code: a change that would make a
// running workflow non-deterministic fails here before it reaches a worker.
import { readdir, readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils.js';
import { Worker } from '@temporalio/worker';
import { describe, expect, it } from 'vitest';
import { checkReplay, INLINE_TRANSCRIPT_MESSAGE } from '../../src/cli/replay-check.js';
import { sharedBundle } from '../support/harness.js';
import { historiesDir } from '../support/histories.js';

describe('replay of saved histories', () => {
  it('replays every history under test/fixtures/histories without non-determinism', async () => {
    const files = (await readdir(historiesDir)).filter((name) => name.endsWith('.json')).sort();
    expect(files.length).toBeGreaterThanOrEqual(3);
    const histories = await Promise.all(
      files.map(async (file) => ({
        workflowId: file.replace(/\.json$/, ''),
        history: historyFromJSON(JSON.parse(await readFile(`${historiesDir}${file}`, 'utf8'))),
      })),
    );
    const results = [];
    for await (const result of Worker.runReplayHistories({ workflowBundle: await sharedBundle() }, histories)) {
      results.push(result);
    }
    expect(results).toHaveLength(files.length);
    for (const result of results) expect(result.error, `${result.workflowId}: ${String(result.error)}`).toBeUndefined();
  });
});

describe('replay of a history recorded before the content store', () => {
  it('fails with a message that says why, not with a bare nondeterminism error', async () => {
    const file = fileURLToPath(new URL('../fixtures/legacy-histories/inline-transcript-demo.json', import.meta.url));
    const history = historyFromJSON(JSON.parse(await readFile(file, 'utf8')));
    const check = await checkReplay(await sharedBundle(), history, 'demo');
    expect(check.deterministic).toBe(false);
    if (check.deterministic) return;
    expect(check.divergence.message).toBe(INLINE_TRANSCRIPT_MESSAGE);
  });
});
