// Node: stat snapshots: the identity of one version of a file, compared before a rename and across a read.
import type { BigIntStats } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';

/** What `stat` says about one version of a file. */
export interface FileSnapshot {
  /** Nanosecond mtime: the commit check compares this, since ms resolution misses fast successive writes. */
  mtimeNs: bigint;
  /** Milliseconds, as stored in the read-state store and reported to the model. */
  mtimeMs: number;
  size: number;
  ino: bigint;
  dev: bigint;
  mode: number;
  uid: number;
  gid: number;
  isFile: boolean;
  isDirectory: boolean;
}

/** Stats a path (following symlinks) with nanosecond precision. */
export async function statSnapshot(filePath: string): Promise<FileSnapshot> {
  return snapshotOf(await stat(filePath, { bigint: true }));
}

/** The snapshot of an opened file. */
export async function handleSnapshot(handle: FileHandle): Promise<FileSnapshot> {
  return snapshotOf(await handle.stat({ bigint: true }));
}

/** A snapshot from bigint stats (of `stat`, `lstat` or `fstat`). */
export function snapshotOf(info: BigIntStats): FileSnapshot {
  return {
    mtimeNs: info.mtimeNs,
    // Microsecond precision survives the JSON round trip through workflow state exactly enough to compare.
    mtimeMs: Number(info.mtimeNs / 1000n) / 1000,
    size: Number(info.size),
    ino: info.ino,
    dev: info.dev,
    mode: Number(info.mode),
    uid: Number(info.uid),
    gid: Number(info.gid),
    isFile: info.isFile(),
    isDirectory: info.isDirectory(),
  };
}

/** True when two snapshots describe the same version of the same file: (mtime_ns, size) plus the inode. */
export function sameVersion(left: FileSnapshot, right: FileSnapshot): boolean {
  return left.mtimeNs === right.mtimeNs && left.size === right.size && left.ino === right.ino && left.dev === right.dev;
}

/** A whole-file read that saw one version of the file, or the report that it kept changing. */
export type StableRead =
  { ok: true; bytes: Buffer; snapshot: FileSnapshot } | { ok: false; reason: 'changed_during_read' };

/**
 * Reads a whole file between two stats; if the stats differ it retries once, then gives up (docs/tools.md §11.1
 * ReadFile step 2). `openFile` opens it afresh for each attempt (confined.ts: never through a link planted on the way).
 */
export async function readStable(openFile: () => Promise<FileHandle>): Promise<StableRead> {
  for (let attempt = 0; attempt < 2; attempt++) {
    const handle = await openFile();
    try {
      const before = await handleSnapshot(handle);
      const bytes = await readFile(handle);
      const after = await handleSnapshot(handle);
      if (sameVersion(before, after) && bytes.length === after.size) return { ok: true, bytes, snapshot: after };
    } finally {
      await handle.close();
    }
  }
  return { ok: false, reason: 'changed_during_read' };
}
