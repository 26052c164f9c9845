import { defineConfig } from 'vitest/config';

// `npm run test:cluster`: the cluster tests, apart from `npm test` because they build and start a whole cluster
// (PostgreSQL, the Temporal server, the Web UI, two workers) and check the compose file with a Go program.
export default defineConfig({
  test: {
    include: ['test/cluster/**/*.test.ts'],
    root: new URL('../../', import.meta.url).pathname,
    pool: 'forks',
    // One cluster at a time on a 2-core machine: the files run one after another.
    fileParallelism: false,
    testTimeout: 5 * 60_000,
    hookTimeout: 30 * 60_000,
    reporters: ['default'],
  },
});
