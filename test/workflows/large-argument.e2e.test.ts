// A 1 MB WriteFile argument streamed 4 characters a delta (some 260,000 events), end to end on the real dev server
// through each provider's real SDK, with live output on as the CLI's worker has it: the run completes, the file is
// written whole, and the live output carries the whole argument. The time such a run takes (under a second) is the
// large-arguments bench's to measure (`npm run bench -- large-arguments`); the bound here only catches a cost per
// delta coming back (the same run took 30 to 60 seconds on a loaded machine when every delta was parsed, assembled and
// published on its own), loose enough for a busy machine.
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFileLiveChannel } from '../../src/live/file-channel.js';
import { liveRoot, workflowDirectory } from '../../src/live/file-layout.js';
import type { LiveChannel } from '../../src/live/live-channel.js';
import { parseLiveEvent } from '../../src/live/live-event.js';
import { DEFAULT_MAX_MODEL_OUTPUT_BYTES } from '../../src/providers/output-limit.js';
import type { Harness } from '../support/harness.js';
import { startHarness, startScriptedRun, workspaceFrom } from '../support/harness.js';
import { fileContent, MEGABYTE, TOKEN_CHARS } from '../support/large-argument-layers.js';

const BOUND_MS = 15_000;

let stateDir: string;
let live: LiveChannel;
let harness: Harness;
beforeAll(async () => {
  stateDir = await mkdtemp(join(tmpdir(), 'durable-agent-large-state-'));
  live = createFileLiveChannel({ stateDir, maxAttemptBytes: DEFAULT_MAX_MODEL_OUTPUT_BYTES });
  harness = await startHarness({ OPENAI_API_KEY: 'test-key' }, { live });
});
afterAll(async () => {
  await harness?.close();
  await live?.close();
  await rm(stateDir, { recursive: true, force: true });
});

/** The arguments text of the live output of a workflow's calls, joined as a watcher joins it. */
async function liveArguments(workflowId: string): Promise<string> {
  const directory = workflowDirectory(liveRoot(stateDir), workflowId);
  // One directory per run, one file per call attempt: this run has one of each with tool calls.
  const files = (await readdir(directory, { recursive: true })).filter((file) => file.endsWith('.ndjson')).sort();
  const lines = (await Promise.all(files.map((file) => readFile(join(directory, file), 'utf8')))).join('').split('\n');
  return lines
    .map((line) => parseLiveEvent(line))
    .flatMap((event) => (event?.kind === 'tool_arguments' ? [event.text] : []))
    .join('');
}

describe.each(['openai', 'anthropic'] as const)('a 1 MB argument in 4-character deltas through %s', (provider) => {
  it('is written whole, and shown whole in live output', async () => {
    const workspace = await workspaceFrom();
    const content = fileContent(MEGABYTE);
    const { handle, model } = await startScriptedRun(harness, {
      workspace,
      input: { askPolicy: 'approve', selection: { provider } },
      server: { keepRequests: 1 },
      script: [
        {
          tool_calls: [{ id: 'big', name: 'WriteFile', arguments: { path: 'big.txt', content } }],
          chunk_size: TOKEN_CHARS,
        },
        { content: 'written' },
      ],
    });
    try {
      const started = performance.now();
      expect(await handle.result()).toMatchObject({ status: 'completed', answer: 'written' });
      expect(performance.now() - started).toBeLessThan(BOUND_MS);
      expect(await readFile(join(workspace, 'big.txt'), 'utf8')).toBe(content);
      // Live output is flushed in the background after the call: it is complete once the run is.
      await expect
        .poll(() => liveArguments(handle.workflowId), { timeout: 10_000 })
        .toBe(JSON.stringify({ path: 'big.txt', content }));
    } finally {
      await model.close();
    }
  }, 120_000);
});
