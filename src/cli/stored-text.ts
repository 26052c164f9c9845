// Node: a run's answer as text. A model's answer longer than a few kilobytes travels through history as a reference
// to the content store; the CLI reads it back from the same store the workers write.
import { parseRef } from '../core/content-key.js';
import { storeFromEnv } from '../store/store-from-env.js';
import { stateDir } from './state-dir.js';

/** The text a value stands for: itself, or the stored content its reference names (an error names key and store). */
export async function storedText<T extends string | null | undefined>(value: T): Promise<T | string> {
  const key = parseRef(value);
  if (!key) return value;
  const store = storeFromEnv(process.env, { stateDir: stateDir() });
  return Buffer.from(await store.get(key)).toString('utf8');
}
