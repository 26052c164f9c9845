// `npm run temporal:provision`: makes sure a Temporal CLI is available for the dev server and the test suite,
// building or downloading it into the cache when needed, and says where it came from and how long that took.
import { performance } from 'node:perf_hooks';
import { findTemporalBinary, TemporalBinaryError } from '../src/host/temporal-binary.js';

const started = performance.now();
try {
  const binary = await findTemporalBinary({ build: true, log: (line) => console.error(`  ${line}`) });
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  console.log(`Temporal CLI: ${binary.path}`);
  console.log(`  source:  ${binary.source}`);
  console.log(`  version: ${binary.version}`);
  console.log(`  took:    ${seconds}s`);
} catch (error) {
  if (!(error instanceof TemporalBinaryError)) throw error;
  console.error(error.message);
  process.exitCode = 1;
}
