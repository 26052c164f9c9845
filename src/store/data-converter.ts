// Node: the data converter of every worker and client of this project. Payloads over a size threshold go to the content
// store through Temporal External Storage, a safety net under the content keys the workflow already passes: whatever
// is still large (a huge query answer, a failure's details) stays out of history too.
import { ExternalStorage } from '@temporalio/common';
import type { DataConverter } from '@temporalio/common';
import type { ContentStore } from './content-store.js';
import { contentStoreDriver } from './temporal-driver.js';
import { DEFAULT_PAYLOAD_THRESHOLD_BYTES, payloadThresholdFromEnv } from './payload-threshold.js';

export { DEFAULT_PAYLOAD_THRESHOLD_BYTES, payloadThresholdFromEnv } from './payload-threshold.js';

/** Options of `agentDataConverter`. */
export interface AgentDataConverterOptions {
  store: ContentStore;
  /** Payloads of at least this many bytes (encoded) are stored externally (default: the environment's, else 256 KiB). */
  payloadSizeThreshold?: number;
}

/** The data converter for `Worker.create`, `new Client` and `Worker.runReplayHistory`. */
export function agentDataConverter(options: AgentDataConverterOptions): DataConverter {
  return {
    externalStorage: new ExternalStorage({
      drivers: [contentStoreDriver(options.store)],
      payloadSizeThreshold: options.payloadSizeThreshold ?? DEFAULT_PAYLOAD_THRESHOLD_BYTES,
    }),
  };
}

/** The data converter configured from the environment, for the CLI's client and the worker. */
export function dataConverterFromEnv(
  store: ContentStore,
  env: Readonly<Record<string, string | undefined>>,
): DataConverter {
  return agentDataConverter({ store, payloadSizeThreshold: payloadThresholdFromEnv(env) });
}
