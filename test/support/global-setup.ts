// Vitest globalSetup: one real Temporal dev server for the whole run, shared by every workflow and CLI test file.
// Test files read its address with `inject('temporalAddress')` or process.env.TEMPORAL_TEST_ADDRESS.
import type { TestProject } from 'vitest/node';
import { buildCliIfStale } from './cli-build.js';
import { startTestTemporalServer } from './temporal-server.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** host:port of the shared test server's frontend. */
    temporalAddress: string;
    /** Namespace with the agent search attributes registered. */
    temporalNamespace: string;
  }
}

/** Starts the shared server and returns its teardown. */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  await buildCliIfStale((line) => process.stderr.write(`[build] ${line}\n`));
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
