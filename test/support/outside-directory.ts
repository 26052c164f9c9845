// A host directory outside every test workspace and outside /tmp (which the sandbox replaces with its own), writable by
// the test's user: where escape attempts aim, so that a file appearing there is a real escape.
import { mkdtemp } from 'node:fs/promises';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const CACHE = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'node_modules', '.cache');

/** A fresh directory under the repository's node_modules/.cache; the caller removes it. */
export async function makeOutsideDirectory(): Promise<string> {
  mkdirSync(CACHE, { recursive: true });
  return await mkdtemp(path.join(CACHE, 'escape-target-'));
}
