// Vitest globalSetup of the unit project: the system tools its tests use, fetched into the cache when missing (the e2e
// project's global setup does the same before it starts its servers).
import { provisionRipgrep } from './optional-tools.js';

export default async function setup(): Promise<void> {
  await provisionRipgrep((line) => process.stderr.write(`[tools] ${line}\n`));
}
