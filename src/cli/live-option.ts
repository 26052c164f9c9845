// Node: `--stream` / `--no-stream`, decided before a run starts; the live output itself (live-output.ts) loads after.
import { UsageError } from './exit-codes.js';

/** `--stream` / `--no-stream` as parsed; neither: live output when stderr (where it goes) is a terminal. */
export function wantsLiveOutput(values: { stream?: boolean; 'no-stream'?: boolean }): boolean {
  if (values.stream && values['no-stream']) throw new UsageError('--stream and --no-stream exclude each other');
  if (values.stream) return true;
  if (values['no-stream']) return false;
  return Boolean(process.stderr.isTTY);
}
