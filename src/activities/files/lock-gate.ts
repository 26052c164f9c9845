// Node: the read-before-write gate of docs/tools.md §8, steps 1-4. Pure: the caller supplies the store entry and the
// file's state.
import type { ErrorCode } from '../../protocol/envelope.js';
import type { ReadState } from '../../protocol/read-state.js';

/** The file as it is now, or `null` when it does not exist. */
export interface CurrentFileState {
  mtime_ms: number;
  size_bytes: number;
  sha256: string;
}

/** The gate's verdict: proceed (perhaps with a note) or an error the model can act on. */
export type LockGateResult =
  | { ok: true; lockNote?: 'mtime_only_change' }
  | { ok: false; code: ErrorCode; message: string; details: Record<string, unknown> };

/** Applies §8 steps 1-4 for a write to `rel`. `current` is null when the target no longer exists (WriteFile only). */
export function checkReadBeforeWrite(options: {
  rel: string;
  entry: ReadState | undefined;
  current: CurrentFileState | null;
}): LockGateResult {
  const { rel, entry, current } = options;
  if (!entry) {
    return {
      ok: false,
      code: 'INVALID_PARAM',
      message: `You must ReadFile '${rel}' before modifying it.`,
      details: { reason: 'read_required' },
    };
  }
  if (current === null) {
    return {
      ok: false,
      code: 'CONFLICT',
      message: `File '${rel}' has been deleted since it was last read. ReadFile it again, then retry.`,
      details: { reason: 'deleted_since_read' },
    };
  }
  if (current.sha256 !== entry.sha256) {
    return {
      ok: false,
      code: 'CONFLICT',
      message: `File '${rel}' has been modified since it was last read. ReadFile it again, then retry.`,
      details: {
        reason: 'modified_since_read',
        expected: { mtime_ms: entry.mtime_ms, size_bytes: entry.size_bytes, sha256: entry.sha256 },
        actual: { mtime_ms: current.mtime_ms, size_bytes: current.size_bytes, sha256: current.sha256 },
      },
    };
  }
  // Same bytes under a new mtime (a touch, a checkout of identical content): safe to write.
  return current.mtime_ms !== entry.mtime_ms ? { ok: true, lockNote: 'mtime_only_change' } : { ok: true };
}
