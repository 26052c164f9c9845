// `npm run s3:provision`: makes sure the S3-compatible test server (s3proxy, from Maven Central) is in the cache, so
// the S3 store tests run instead of skipping; says where it is and how long that took.
import { performance } from 'node:perf_hooks';
import { provisionS3Server, S3PROXY_VERSION, S3ServerUnavailableError } from '../test/support/s3-server.js';

const started = performance.now();
try {
  const jar = await provisionS3Server((line) => console.error(`  ${line}`));
  console.log(`s3proxy ${S3PROXY_VERSION}: ${jar}`);
  console.log(`  took:    ${((performance.now() - started) / 1000).toFixed(1)}s`);
} catch (error) {
  if (!(error instanceof S3ServerUnavailableError)) throw error;
  console.error(error.message);
  process.exitCode = 1;
}
