// Node: the size from which a payload goes to the content store (External Storage), read from the environment without
// loading the SDK: the CLI checks a run's input against it before it starts the run over the embedded HTTP API.
import { ConfigError } from '../config.js';

/** 256 KiB, the SDK's own default: well under the server's 2 MiB payload limit, above any ordinary activity input. */
export const DEFAULT_PAYLOAD_THRESHOLD_BYTES = 256 * 1024;

/** `DURABLE_AGENT_PAYLOAD_THRESHOLD_BYTES`, or the default; anything but a whole number of bytes is an error. */
export function payloadThresholdFromEnv(env: Readonly<Record<string, string | undefined>>): number {
  const raw = env.DURABLE_AGENT_PAYLOAD_THRESHOLD_BYTES;
  if (raw === undefined || raw.trim() === '') return DEFAULT_PAYLOAD_THRESHOLD_BYTES;
  const bytes = Number(raw);
  if (!Number.isSafeInteger(bytes) || bytes < 0)
    throw new ConfigError(`DURABLE_AGENT_PAYLOAD_THRESHOLD_BYTES=${raw} is not a number of bytes (0 or more).`);
  return bytes;
}
