// Node: the write journal behind the durable retry of docs/tools.md §8.
//
// A write activity can crash (or lose its worker, or time out) after its rename landed but before Temporal recorded
// the result; Temporal then runs the same activity again. That retry would see its own write as a foreign change
// (CONFLICT) or, for a created file, a file it never read (read_required). So before each rename the executor records
// `{expected_sha256, intended_sha256}` under the activity's stable key, and a retry whose file already holds the
// intended bytes reports the original result with `idempotent_replay: true` instead of writing again.
//
// Records are NOT removed after a successful commit: the worker cannot know whether Temporal stored the result, and a
// retry that needs the record may come after any commit. Retries of a write activity finish within minutes
// (3 attempts × 30 s plus backoff), so records older than a day are swept opportunistically on later writes.
//
// Records live in the worker's own data directory for the workspace (worker-data.ts `journalDirectory`), outside the
// workspace: nothing a command writes can plant a link there for the sweep to delete through or a write to follow.
import { randomBytes } from 'node:crypto';
import { mkdir, open, readFile, readdir, rename, stat, unlink } from 'node:fs/promises';
import path from 'node:path';
import { sha256Hex } from '../../store/object-key.js';

/** Records older than this are deleted when a later write sweeps the directory. */
export const JOURNAL_MAX_AGE_MS = 24 * 60 * 60 * 1000;
const SWEEP_INTERVAL_MS = 60 * 60 * 1000;
const MAX_FILE_STEM = 120;

/** One write's intent, recorded before its rename. */
export interface WriteJournalRecord {
  version: 1;
  tool: 'WriteFile' | 'EditFile';
  rel: string;
  /** sha256 of the bytes this write puts in place. */
  intended_sha256: string;
  /** sha256 the file had when the write was decided; null when the write creates the file. */
  expected_sha256: string | null;
  /** The result the first attempt would have returned, so a replay reports the same thing. */
  result: { text: string; data: Record<string, unknown>; stats: Record<string, unknown> };
}

/** `<journal directory>/<sanitised activity key>.json`. */
export function journalPath(directory: string, activityKey: string): string {
  let stem = activityKey.replace(/[^A-Za-z0-9_-]/g, '_');
  if (stem.length > MAX_FILE_STEM)
    stem = `${stem.slice(0, MAX_FILE_STEM - 17)}-${sha256Hex(Buffer.from(activityKey, 'utf8')).slice(0, 16)}`;
  return path.join(directory, `${stem}.json`);
}

/** Writes a record durably (temp file, fsync, rename, directory fsync) so it is on disk before the target's rename. */
export async function writeJournal(directory: string, activityKey: string, record: WriteJournalRecord): Promise<void> {
  const target = journalPath(directory, activityKey);
  // The worker's own: no other user needs to read what it meant to write.
  await mkdir(directory, { recursive: true, mode: 0o700 });
  const temp = `${target}.${randomBytes(4).toString('hex')}.tmp`;
  const handle = await open(temp, 'wx', 0o600);
  try {
    await handle.writeFile(JSON.stringify(record));
    await handle.sync();
  } finally {
    await handle.close();
  }
  await rename(temp, target);
  const directoryHandle = await open(directory, 'r');
  try {
    await directoryHandle.sync();
  } catch {
    // Some file systems refuse fsync on a directory; the record is still written.
  } finally {
    await directoryHandle.close();
  }
}

/** Reads a record; a missing or unreadable one counts as absent. */
export async function readJournal(directory: string, activityKey: string): Promise<WriteJournalRecord | undefined> {
  try {
    const parsed: unknown = JSON.parse(await readFile(journalPath(directory, activityKey), 'utf8'));
    return isRecord(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

/** Removes a record (after a write that did not commit). */
export async function removeJournal(directory: string, activityKey: string): Promise<void> {
  await unlink(journalPath(directory, activityKey)).catch(() => undefined);
}

const lastSweep = new Map<string, number>();

/** Deletes records older than a day in `directory` (and nowhere else), at most once an hour per directory. Never throws. */
export async function sweepJournals(directory: string, now: number = Date.now()): Promise<void> {
  if (now - (lastSweep.get(directory) ?? -Infinity) < SWEEP_INTERVAL_MS) return;
  lastSweep.set(directory, now);
  try {
    for (const name of await readdir(directory)) {
      const file = path.join(directory, name);
      try {
        if (now - (await stat(file)).mtimeMs > JOURNAL_MAX_AGE_MS) await unlink(file);
      } catch {
        // Raced with another sweeper or a writer; skip it.
      }
    }
  } catch {
    // No journal directory yet.
  }
}

function isRecord(value: unknown): value is WriteJournalRecord {
  if (typeof value !== 'object' || value === null) return false;
  const record = value as Partial<WriteJournalRecord>;
  return (
    record.version === 1 &&
    (record.tool === 'WriteFile' || record.tool === 'EditFile') &&
    typeof record.rel === 'string' &&
    typeof record.intended_sha256 === 'string' &&
    (record.expected_sha256 === null || typeof record.expected_sha256 === 'string') &&
    typeof record.result === 'object' &&
    record.result !== null
  );
}
