// Load: 50 runs at once on one worker process all finish, each with exactly its own files. The worker's memory is
// printed (RSS idle, peak, per run); `npm run soak` runs the longer version and records the figures.
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { runLoad } from '../support/load-run.js';
import { describeTimings } from '../support/task-timings.js';
import { writeWorkflowBundle } from '../support/worker-process.js';

let directory: string;
let bundlePath: string;

beforeAll(async () => {
  directory = await mkdtemp(path.join(os.tmpdir(), 'durable-agent-load-test-'));
  bundlePath = await writeWorkflowBundle(directory);
});

afterAll(async () => {
  await rm(directory, { recursive: true, force: true });
});

const MiB = 1024 * 1024;

describe('load', () => {
  it('finishes 50 concurrent runs of 3 steps on one worker process', { timeout: 180_000 }, async () => {
    const outcome = await runLoad({ address: inject('temporalAddress'), bundlePath }, { runs: 50, steps: 3 });
    process.stderr.write(
      `[load] ${outcome.finished}/${outcome.runs} runs of ${outcome.steps} steps in ${Math.round(outcome.wallMs)} ms; ` +
        `worker RSS idle ${(outcome.idleRssBytes / MiB).toFixed(0)} MiB, peak ${(outcome.peakRssBytes / MiB).toFixed(0)} MiB, ` +
        `${(outcome.perRunBytes / MiB).toFixed(2)} MiB a run; ${describeTimings(outcome.timings)}\n`,
    );
    expect(outcome.failures).toEqual([]);
    expect(outcome.finished).toBe(50);
    expect(outcome.peakRssBytes).toBeGreaterThanOrEqual(outcome.idleRssBytes);
    // No worker is lost here: a heartbeat timeout would be a live worker taken for a dead one.
    expect(outcome.timings.runs).toBe(50);
    expect(outcome.timings.heartbeatTimeouts).toBe(0);
  });
});
