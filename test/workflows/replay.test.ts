// Replays the saved histories of passing runs against the current workflow code: a change that would make a
// running workflow non-deterministic fails here before it reaches a worker.
import { readdir, readFile } from 'node:fs/promises';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils.js';
import { Worker } from '@temporalio/worker';
import { describe, expect, it } from 'vitest';
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
