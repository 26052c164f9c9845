// Node: which first run each run proof was first honoured for, kept in the state directory so that every worker
// process of the embedded server agrees: a proof read from a run's history cannot start a second chain.
import { createHash, randomUUID } from 'node:crypto';
import { link, mkdir, readFile, readdir, stat, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { RUN_PROOF_WINDOW_MS } from '../../protocol/run-authorization.js';

// A binding matters only while a new chain could still use its proof (the window); older files are pruned, at most
// once a window by each process (a scan of the directory per run would grow with the runs).
const KEEP_MS = 12 * RUN_PROOF_WINDOW_MS;

/** Binds proofs to first run ids; `bind` answers the first run id the proof belongs to. */
export interface RunBindings {
  bind(mac: string, firstRunId: string): Promise<string>;
}

/**
 * Bindings in `directory` (created 0700), one file per proof, written once. A binding file appears whole or not at
 * all: it is written under a private name and hard-linked into place, which fails if another activity (of this
 * process or another worker) bound the proof first — so a reader never sees a file still being written.
 */
export function createRunBindings(directory: string): RunBindings {
  // Promises, not values: the activities a run schedules together ask at the same moment and share one answer.
  const known = new Map<string, Promise<string>>();
  let prunedAt = 0;
  const pruneNowAndThen = (): void => {
    if (Date.now() - prunedAt < RUN_PROOF_WINDOW_MS) return;
    prunedAt = Date.now();
    void prune(directory);
  };
  return {
    bind(mac, firstRunId) {
      let answer = known.get(mac);
      if (!answer) {
        answer = bindOnDisk(directory, mac, firstRunId);
        known.set(mac, answer);
        pruneNowAndThen();
        answer.catch(() => known.delete(mac));
      }
      return answer;
    },
  };
}

async function bindOnDisk(directory: string, mac: string, firstRunId: string): Promise<string> {
  await mkdir(directory, { recursive: true, mode: 0o700 });
  const file = path.join(directory, createHash('sha256').update(mac).digest('hex').slice(0, 32));
  const draft = `${file}.${randomUUID()}.draft`;
  await writeFile(draft, firstRunId, { flag: 'wx', mode: 0o600 });
  try {
    await link(draft, file);
    return firstRunId;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    return (await readFile(file, 'utf8')).trim();
  } finally {
    await unlink(draft).catch(() => undefined);
  }
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
