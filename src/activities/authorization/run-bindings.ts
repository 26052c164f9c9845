// Node: which first run each run proof was first honoured for, kept in the state directory so that every worker
// process of the embedded server agrees: a proof read from a run's history cannot start a second chain.
import { createHash } from 'node:crypto';
import { mkdir, readFile, readdir, stat, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { RUN_PROOF_WINDOW_MS } from '../../protocol/run-authorization.js';

// A binding matters only while a new chain could still use its proof (the window); older files are pruned.
const KEEP_MS = 12 * RUN_PROOF_WINDOW_MS;

/** Binds proofs to first run ids; `bind` answers the first run id the proof belongs to. */
export interface RunBindings {
  bind(mac: string, firstRunId: string): Promise<string>;
}

/** Bindings in `directory` (created 0700), one file per proof, written once (O_EXCL). */
export function createRunBindings(directory: string): RunBindings {
  const known = new Map<string, string>();
  return {
    async bind(mac, firstRunId) {
      const cached = known.get(mac);
      if (cached !== undefined) return cached;
      await mkdir(directory, { recursive: true, mode: 0o700 });
      const file = path.join(directory, createHash('sha256').update(mac).digest('hex').slice(0, 32));
      let bound: string;
      try {
        await writeFile(file, firstRunId, { flag: 'wx', mode: 0o600 });
        bound = firstRunId;
        void prune(directory);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
        bound = (await readFile(file, 'utf8')).trim();
      }
      known.set(mac, bound);
      return bound;
    },
  };
}

async function prune(directory: string): Promise<void> {
  try {
    const now = Date.now();
    for (const name of await readdir(directory)) {
      const file = path.join(directory, name);
      const stats = await stat(file).catch(() => undefined);
      if (stats && now - stats.mtimeMs > KEEP_MS) await unlink(file).catch(() => undefined);
    }
  } catch {
    // Pruning is housekeeping: a failure leaves a few small files behind.
  }
}
