// Node: how large one model answer may grow, as the worker's environment sets it (output-cap.ts enforces it). Apart
// from the enforcement, which needs the Temporal SDK's failures, so the CLI sizing its live output loads no SDK.

/** The worker variable that sets the cap, in bytes. */
export const MAX_MODEL_OUTPUT_VARIABLE = 'DURABLE_AGENT_MAX_MODEL_OUTPUT_BYTES';
/** 16 MiB: far above any real answer (a WriteFile's 5 MB content, JSON-escaped, fits), far below V8's string limit. */
export const DEFAULT_MAX_MODEL_OUTPUT_BYTES = 16 * 1024 * 1024;

/** The cap from DURABLE_AGENT_MAX_MODEL_OUTPUT_BYTES, or the default when unset or not a positive integer. */
export function maxModelOutputBytesFromEnv(env: NodeJS.ProcessEnv = process.env): number {
  const configured = Number(env[MAX_MODEL_OUTPUT_VARIABLE]);
  return Number.isSafeInteger(configured) && configured > 0 ? configured : DEFAULT_MAX_MODEL_OUTPUT_BYTES;
}
