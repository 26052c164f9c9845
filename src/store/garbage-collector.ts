// Node: mark and sweep over a content store. Marks everything reachable from the roots (the keys open runs refer to)
// by following the keys each stored text mentions; sweeps what is unreachable and older than a threshold.
import type { ContentKey } from '../protocol/content-key.js';
import { referencedKeys } from '../protocol/content-key.js';
import type { ContentStore } from './content-store.js';
import { MissingContentError } from './content-store.js';

/** How many objects and how many bytes. */
export interface Tally {
  objects: number;
  bytes: number;
}

/** What a collection found and did. */
export interface GcReport {
  /** Objects in the store when it was listed. */
  stored: Tally;
  /** Stored objects reachable from the roots. */
  reachable: Tally;
  /** Unreachable objects written (or re-put) after the cutoff: possibly about to be referenced, so kept. */
  recent: Tally;
  /** Unreachable objects older than the cutoff: deleted, or with `dryRun` what would be. */
  deleted: Tally;
  /** Their keys. */
  deletedKeys: ContentKey[];
  /** Old unreachable objects that were re-put during the sweep, so kept after all. */
  reused: Tally;
  /** Keys reachable from the roots but not in the store (collected earlier, or never written). */
  missing: ContentKey[];
}

/** Options of `collectGarbage`. */
export interface GcOptions {
  /** Objects last written before this are old enough to delete when unreachable. */
  cutoff: Date;
  /** Report what would be deleted without deleting. */
  dryRun: boolean;
  /** Reads and deletes in flight at once (default 16: S3 round trips dominate, a directory does not mind). */
  concurrency?: number;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Collects `store` given the keys live runs refer to. Roots are taken before the listing, and each delete is
 * conditional on the object not having been re-put since the cutoff, so content a run starts re-using mid-sweep stays.
 */
export async function collectGarbage(
  store: ContentStore,
  roots: Iterable<ContentKey>,
  options: GcOptions,
): Promise<GcReport> {
  const concurrency = options.concurrency ?? 16;
  const listed: { key: ContentKey; bytes: number; writtenAt: Date }[] = [];
  for await (const object of store.list()) listed.push(object);

  const marked = new Set<ContentKey>();
  const missing: ContentKey[] = [];
  let frontier = [...new Set(roots)];
  frontier.forEach((key) => marked.add(key));
  while (frontier.length > 0) {
    const next: ContentKey[] = [];
    await forEachLimited(frontier, concurrency, async (key) => {
      let bytes: Uint8Array;
      try {
        bytes = await store.get(key);
      } catch (error) {
        if (!(error instanceof MissingContentError)) throw error;
        missing.push(key);
        return;
      }
      for (const child of referencesIn(bytes)) {
        if (marked.has(child)) continue;
        marked.add(child);
        next.push(child);
      }
    });
    frontier = next;
  }

  const report: GcReport = {
    stored: tally(listed),
    reachable: tally(listed.filter((object) => marked.has(object.key))),
    recent: tally([]),
    deleted: tally([]),
    deletedKeys: [],
    reused: tally([]),
    missing: missing.sort(),
  };
  const unreachable = listed.filter((object) => !marked.has(object.key));
  report.recent = tally(unreachable.filter((object) => object.writtenAt >= options.cutoff));
  const candidates = unreachable.filter((object) => object.writtenAt < options.cutoff);
  await forEachLimited(candidates, concurrency, async (object) => {
    const deleted = options.dryRun || (await store.delete(object.key, { ifWrittenBefore: options.cutoff }));
    const counter = deleted ? report.deleted : report.reused;
    counter.objects += 1;
    counter.bytes += object.bytes;
    if (deleted) report.deletedKeys.push(object.key);
  });
  report.deletedKeys.sort();
  return report;
}

/** Keys a stored text mentions; content that is not UTF-8 text (an image, an archive) refers to nothing. */
function referencesIn(bytes: Uint8Array): ContentKey[] {
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    return [];
  }
  return referencedKeys(text);
}

function tally(objects: { bytes: number }[]): Tally {
  return { objects: objects.length, bytes: objects.reduce((sum, object) => sum + object.bytes, 0) };
}

async function forEachLimited<T>(items: T[], limit: number, action: (item: T) => Promise<void>): Promise<void> {
  let index = 0;
  const lane = async (): Promise<void> => {
    while (index < items.length) await action(items[index++]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
}
