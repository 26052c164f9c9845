import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Temporal's native worker does not run inside worker threads; forks keep each file in its own process.
    pool: 'forks',
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
