import { mkdir, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { WorkflowHandle } from '@temporalio/client';
import { historyToJSON } from '@temporalio/common/lib/proto-utils.js';
import { Worker } from '@temporalio/worker';
import { sharedBundle } from './harness.js';

/** Where the histories of passing runs are kept for the replay test. */
export const historiesDir = fileURLToPath(new URL('../fixtures/histories/', import.meta.url));

/**
 * Replays a finished run's history against the current workflow code right away (catching non-determinism in the
 * test that produced it) and, with UPDATE_HISTORIES=1, saves it as a fixture for the replay suite.
 */
export async function saveHistory(name: string, handle: WorkflowHandle): Promise<void> {
  const history = await handle.fetchHistory();
  await Worker.runReplayHistory({ workflowBundle: await sharedBundle() }, history, handle.workflowId);
  if (process.env.UPDATE_HISTORIES === '1') {
    await mkdir(historiesDir, { recursive: true });
    await writeFile(`${historiesDir}${name}.json`, historyToJSON(history));
  }
}
