// Bundles the compiled workflows into dist/workflow-bundle.js (the last step of `npm run build`), so that a worker
// process starts polling at once instead of bundling first.
import { writeFileSync } from 'node:fs';
import process from 'node:process';
import { bundleWorkflowCode } from '@temporalio/worker';
import { agentBundleOptions, prebuiltBundlePath, prebuiltTracedBundlePath } from '../dist/worker.js';

const quiet = () => undefined;
/** @param {boolean} tracing */
const bundle = async (tracing) => {
  const { code } = await bundleWorkflowCode({
    ...agentBundleOptions({ tracing }),
    logger: {
      log: quiet,
      trace: quiet,
      debug: quiet,
      info: quiet,
      warn: quiet,
      error: (message) => process.stderr.write(`${message}\n`),
    },
  });
  return code;
};
// Without and with the tracing interceptors: a worker exporting traces loads the second (src/worker.ts).
writeFileSync(prebuiltBundlePath, await bundle(false));
writeFileSync(prebuiltTracedBundlePath, await bundle(true));
