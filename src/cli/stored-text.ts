// Node: a run's answer as text. A model's answer longer than a few kilobytes travels through history as a reference
// to the content store; the CLI reads it back from the same store the workers write.
import { parseRef } from '../protocol/content-key.js';
import { cliStore } from './cli-store.js';

/** The text a value stands for: itself, or the stored content its reference names (an error names key and store). */
export async function storedText<T extends string | null | undefined>(value: T): Promise<T | string> {
  const key = parseRef(value);
  if (!key) return value;
  return Buffer.from(await cliStore().get(key)).toString('utf8');
}
