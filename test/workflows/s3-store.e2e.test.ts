// The same end-to-end store scenarios as the directory store's, with workers on an S3 bucket of a real
// S3-compatible server (s3proxy): what a cluster deployment runs.
import type { TestContext } from 'vitest';
import { afterAll, beforeAll } from 'vitest';
import { storeFromEnv } from '../../src/store/store-from-env.js';
import type { Harness } from '../support/harness.js';
import { startHarness } from '../support/harness.js';
import type { TestS3Server } from '../support/s3-server.js';
import { S3ServerUnavailableError, startS3Server } from '../support/s3-server.js';
import { runStoreScenarios } from '../support/store-scenarios.js';

let s3: TestS3Server | undefined;
let harness: Harness | undefined;
let problem: unknown;
// Not provisioned: skipped with the reason on a developer's machine; in CI every scenario fails with it.
const mayskip = (error: unknown): error is S3ServerUnavailableError =>
  error instanceof S3ServerUnavailableError && process.env.CI !== 'true';

beforeAll(async () => {
  try {
    s3 = await startS3Server();
    harness = await startHarness(
      { OPENAI_API_KEY: 'test-key' },
      { store: storeFromEnv(s3.storeEnv('workflows/'), { stateDir: '/nonexistent' }) },
    );
  } catch (error) {
    problem = error;
  }
}, 120_000);

afterAll(async () => {
  await harness?.close();
  await s3?.stop();
});

function s3Harness(context: TestContext): Harness {
  if (harness) return harness;
  if (mayskip(problem)) context.skip(`S3 server unavailable: ${problem.message}`);
  throw problem instanceof Error ? problem : new Error(`S3 server did not start: ${String(problem)}`);
}

runStoreScenarios('S3 store', s3Harness);
