import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // One real Temporal dev server for the whole run (never the SDK's download path).
    globalSetup: ['./test/support/global-setup.ts'],
    // Temporal's native worker does not run inside worker threads; forks keep each file in its own process.
    pool: 'forks',
    testTimeout: 60_000,
    hookTimeout: 120_000,
    reporters: ['default', './test/support/summary-reporter.ts'],
  },
});
