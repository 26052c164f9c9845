import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { globSync } from 'tinyglobby';
import { configDefaults, defineConfig } from 'vitest/config';

// Four projects, told apart by file name: `unit` needs nothing but Node (and rg for the Grep tests), `e2e` gets the
// shared Temporal dev server of the global setup, the built CLI and s3proxy. A test file is e2e when it is named
// *.e2e.test.ts, or listed here because it cannot be renamed yet. `long` holds the pure tests too slow for the quick
// loop (`npm run test:unit`): properties at full size, *.long.test.ts; `host` the tests of real programs listed below;
// `npm test` runs all four.
const E2E_PATTERN = 'test/**/*.e2e.test.ts';
const LONG_PATTERN = 'test/**/*.long.test.ts';
const E2E_LISTED = ['test/cli/dev-server.test.ts'];
// No server, but real programs on this host, each started many times: the command sandbox (bubblewrap, network
// namespaces), rg, nats-server, MCP servers over stdio, the CLI's launcher, dependency-cruiser and the workflow bundler.
// `host` runs them, outside the quick loop.
const HOST_LISTED = [
  'test/activities/sandbox-host.test.ts',
  'test/activities/sandbox-escapes.test.ts',
  'test/activities/bash.test.ts',
  'test/activities/bash-network.test.ts',
  'test/activities/bash-sandbox.test.ts',
  'test/activities/grep-engines.test.ts',
  'test/activities/search/rg-translation.test.ts',
  'test/activities/search/grep-regex.test.ts',
  'test/cli/bin.test.ts',
  'test/activities/read-file-memory.test.ts',
  'test/activities/mcp-connections.test.ts',
  'test/activities/mcp-stdio-launch.test.ts',
  'test/activities/mcp-run-servers.test.ts',
  'test/live/nats-channel.test.ts',
  'test/repository/import-graph.test.ts',
  'test/workflows/replay.test.ts',
  'test/workflows/bundle.test.ts',
];

// What only the e2e project provides: the shared server, the harness on it, the spawned CLI, s3proxy.
const NEEDS_E2E =
  /\binject\(\s*['"]temporal(?:Address|Namespace)['"]|TEMPORAL_TEST_ADDRESS|\b(?:startHarness|startScriptedRun|temporalAddress|cliRunner|runCli|durableAgentBin|runStoreScenarios|startS3Server|startTestTemporalServer)\b/;

// The naming rule, checked on every run: a unit-named file that uses any of those would fail without the server.
const root = path.dirname(fileURLToPath(import.meta.url));

// Inside the command sandbox /tmp is private, so a checkout under /tmp (a CI clone) would be hidden from the servers
// and scripts of the repository that tests run there. A directory under /tmp on the worker's PATH is bound back
// read-only, as toolchains are: the repository goes on the tests' PATH (their forks inherit it).
if (root.startsWith('/tmp/')) process.env.PATH = `${root}${path.delimiter}${process.env.PATH ?? ''}`;
const misplaced = globSync('test/**/*.test.ts', { cwd: root, ignore: [E2E_PATTERN, ...E2E_LISTED] }).filter((file) =>
  NEEDS_E2E.test(readFileSync(path.join(root, file), 'utf8')),
);
if (misplaced.length > 0) {
  throw new Error(
    `These tests need the Temporal test server, the CLI or s3proxy, which only the e2e project provides; ` +
      `name them *.e2e.test.ts: ${misplaced.sort().join(', ')}`,
  );
}

export default defineConfig({
  test: {
    // Temporal's native worker does not run inside worker threads; forks keep each file in its own process.
    pool: 'forks',
    testTimeout: 60_000,
    hookTimeout: 120_000,
    reporters: ['default', './test/support/summary-reporter.ts'],
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['test/**/*.test.ts'],
          // Pure tests share their worker processes (no new process and module graph per file) and use every core,
          // where vitest's default leaves one free.
          isolate: false,
          maxWorkers: '100%',
          sequence: { groupOrder: 0 },
          // The cluster tests have their own configuration (npm run test:cluster).
          exclude: [
            ...configDefaults.exclude,
            E2E_PATTERN,
            LONG_PATTERN,
            ...E2E_LISTED,
            ...HOST_LISTED,
            'test/cluster/**',
          ],
          // ripgrep for the Grep tests, fetched into the cache when it is not installed.
          globalSetup: ['./test/support/tools-setup.ts'],
        },
      },
      {
        extends: true,
        test: {
          name: 'host',
          include: HOST_LISTED,
          maxWorkers: '100%',
          sequence: { groupOrder: 0 },
          globalSetup: ['./test/support/tools-setup.ts'],
        },
      },
      {
        extends: true,
        test: {
          name: 'long',
          include: [LONG_PATTERN],
          isolate: false,
          maxWorkers: '100%',
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: {
          name: 'e2e',
          sequence: { groupOrder: 1 },
          include: [E2E_PATTERN, ...E2E_LISTED],
          // One real Temporal dev server for the whole run (never the SDK's download path), and the CLI built.
          globalSetup: ['./test/support/global-setup.ts'],
        },
      },
    ],
  },
});
