// The content store failing for real, end to end with worker processes on a real Temporal server: the S3-compatible
// store (s3proxy) killed for a minute mid-run and started again; the store's disk full. Each run must wait, say what
// is wrong where an operator looks (the pending activity's last failure), go on once the store is back, and leave
// nothing lost, done twice or written half.
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { FaultEnv } from '../support/faults/fault-run.js';
import { faultProblems } from '../support/faults/fault-run.js';
import { storeDiskFull } from '../support/faults/store-disk-full.js';
import { storeOutage } from '../support/faults/store-outage.js';
import { writeWorkflowBundle } from '../support/worker-process.js';

let directory: string;
let env: FaultEnv;

beforeAll(async () => {
  directory = await mkdtemp(path.join(os.tmpdir(), 'durable-agent-store-faults-'));
  env = { address: inject('temporalAddress'), bundlePath: await writeWorkflowBundle(directory) };
});

afterAll(async () => {
  await rm(directory, { recursive: true, force: true });
});

describe.concurrent('content store faults', { timeout: 240_000 }, () => {
  it('waits out the S3 store stopped for 60 s mid-run and goes on: nothing lost or done twice', async () => {
    const outcome = await storeOutage(env, { downMs: 60_000 });
    process.stderr.write(`[store-faults] ${JSON.stringify(outcome, null, 1)}\n`);
    expect(faultProblems(outcome)).toEqual([]);
    // Every tool call's own result reached the model, and the model was asked once a turn.
    expect(outcome.toolResults).toEqual(['before: success', 'during: success', 'after: success']);
    expect(outcome.modelRequests).toBe(4);
    expect(outcome.operatorMessages.join('\n')).toContain(`content store unreachable at ${outcome.endpoint}`);
  });

  it('waits while the store disk is full, writes nothing half, and goes on once space is freed', async () => {
    const outcome = await storeDiskFull(env, { fullMs: 10_000 });
    process.stderr.write(`[store-faults] ${JSON.stringify(outcome, null, 1)}\n`);
    expect(faultProblems(outcome)).toEqual([]);
    expect(outcome.badObjects).toEqual([]);
    expect(outcome.objectsWhileFull).toBeGreaterThan(0);
    expect(outcome.toolResults).toEqual(['before: success', 'during: success']);
    expect(outcome.modelRequests).toBe(3);
    expect(outcome.operatorMessages.join('\n')).toContain(`content store disk full (ENOSPC) at ${outcome.storeDir}`);
  });
});
