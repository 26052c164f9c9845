// Node: the data converter of every worker and client of this project. Payloads over a size threshold go to the content
// store through Temporal External Storage, a safety net under the content keys the workflow already passes: whatever
// is still large (a huge query answer, a failure's details) stays out of history too.
import { ExternalStorage } from '@temporalio/common';
import type { DataConverter } from '@temporalio/common';
import { ConfigError } from '../config.js';
import type { ContentStore } from './content-store.js';
import { contentStoreDriver } from './temporal-driver.js';

/** 256 KiB, the SDK's own default: well under the server's 2 MiB payload limit, above any ordinary activity input. */
export const DEFAULT_PAYLOAD_THRESHOLD_BYTES = 256 * 1024;

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

/** `DURABLE_AGENT_PAYLOAD_THRESHOLD_BYTES`, or the default; anything but a whole number of bytes is an error. */
export function payloadThresholdFromEnv(env: Readonly<Record<string, string | undefined>>): number {
  const raw = env.DURABLE_AGENT_PAYLOAD_THRESHOLD_BYTES;
  if (raw === undefined || raw.trim() === '') return DEFAULT_PAYLOAD_THRESHOLD_BYTES;
  const bytes = Number(raw);
  if (!Number.isSafeInteger(bytes) || bytes < 0)
    throw new ConfigError(`DURABLE_AGENT_PAYLOAD_THRESHOLD_BYTES=${raw} is not a number of bytes (0 or more).`);
  return bytes;
}

/** The data converter configured from the environment, for the CLI's client and the worker. */
export function dataConverterFromEnv(
  store: ContentStore,
  env: Readonly<Record<string, string | undefined>>,
): DataConverter {
  return agentDataConverter({ store, payloadSizeThreshold: payloadThresholdFromEnv(env) });
}
