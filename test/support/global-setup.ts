// Vitest globalSetup: one real Temporal dev server for the whole run, shared by every workflow and CLI test file.
// Test files read its address with `inject('temporalAddress')` or process.env.TEMPORAL_TEST_ADDRESS.
import type { TestProject } from 'vitest/node';
import { provisionBubblewrap } from '../../src/host/bubblewrap.js';
import { JaegerBinaryError } from '../../src/host/jaeger-binary.js';
import { PrometheusBinaryError } from '../../src/host/prometheus-binary.js';
import { buildCliIfStale } from './cli-build.js';
import { provisionObservability } from './observability.js';
import { provisionRipgrep } from './optional-tools.js';
import { provisionS3Server, S3ServerUnavailableError } from './s3-server.js';
import { prepareSlowTaskLog } from './slow-tasks.js';
import { startTestTemporalServer } from './temporal-server.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** host:port of the shared test server's frontend. */
    temporalAddress: string;
    /** Namespace with the agent search attributes registered. */
    temporalNamespace: string;
  }
}

/**
 * Test workers sandbox their commands like any worker: bubblewrap, fetched into the cache when it is not installed.
 * Where none can run, outside CI, the other tests still run with DURABLE_AGENT_SANDBOX=off and the sandbox tests are
 * skipped with the reason.
 */
async function provideCommandSandbox(): Promise<void> {
  const executable = await provisionBubblewrap(process.env, (line) => process.stderr.write(`[sandbox] ${line}\n`));
  if (executable) {
    process.env.DURABLE_AGENT_BWRAP_PATH = executable;
    return;
  }
  if (process.env.CI === 'true') throw new Error('bubblewrap is required in CI: apt-get install bubblewrap');
  process.stderr.write('[sandbox] no bubblewrap: test workers run commands unsandboxed (DURABLE_AGENT_SANDBOX=off)\n');
  process.env.DURABLE_AGENT_SANDBOX = 'off';
}

/**
 * The S3 store tests' server, fetched with Maven into the cache when Java and Maven are here (`npm run s3:provision`
 * does the same); without them those tests are skipped with the reason, or fail in CI.
 */
async function provideS3Server(): Promise<void> {
  try {
    await provisionS3Server((line) => process.stderr.write(`[s3] ${line}\n`));
  } catch (error) {
    if (!(error instanceof S3ServerUnavailableError)) throw error;
    process.stderr.write(`[s3] ${error.message}\n`);
  }
}

/**
 * The telemetry tests' trace and metrics backends: Jaeger built with Go into the cache (about 9 minutes, once) and
 * Prometheus fetched from Debian's package. Where they cannot be had, outside CI, those tests are skipped with the
 * reason.
 */
async function provideObservability(): Promise<void> {
  const log = (line: string) => process.stderr.write(`[observability] ${line}\n`);
  try {
    await provisionObservability(log);
  } catch (error) {
    if (process.env.CI === 'true' || !(error instanceof JaegerBinaryError || error instanceof PrometheusBinaryError))
      throw error;
    log(error.message);
  }
}

/** Starts the shared server and returns its teardown. */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  prepareSlowTaskLog();
  await buildCliIfStale((line) => process.stderr.write(`[build] ${line}\n`));
  await provideCommandSandbox();
  await provisionRipgrep((line) => process.stderr.write(`[tools] ${line}\n`));
  await provideS3Server();
  await provideObservability();
  const started = Date.now();
  const server = await startTestTemporalServer();
  process.stderr.write(
    `[temporal] test server on ${server.address} (${server.uiUrl || 'headless'}) ready in ${Date.now() - started} ms\n`,
  );
  project.provide('temporalAddress', server.address);
  project.provide('temporalNamespace', server.namespace);
  // Test workers are forked from this process after setup, so they inherit the variable.
  process.env.TEMPORAL_TEST_ADDRESS = server.address;
  return async () => {
    await server.stop();
  };
}
