import { describe, expect, it } from 'vitest';
import { checkReadBeforeWrite } from '../../../src/activities/files/lock-gate.js';
import type { ReadState } from '../../../src/protocol/read-state.js';

const entry: ReadState = {
  rel: 'a.txt',
  mtime_ms: 1000.5,
  size_bytes: 3,
  sha256: 'aaa',
  read_at: 1,
  source: 'read',
  partial: false,
};

describe('checkReadBeforeWrite', () => {
  it('requires an entry first of all', () => {
    expect(checkReadBeforeWrite({ rel: 'a.txt', entry: undefined, current: null })).toMatchObject({
      ok: false,
      code: 'INVALID_PARAM',
      details: { reason: 'read_required' },
    });
  });

  it('reports deleted_since_read when the file is gone', () => {
    expect(checkReadBeforeWrite({ rel: 'a.txt', entry, current: null })).toMatchObject({
      ok: false,
      code: 'CONFLICT',
      details: { reason: 'deleted_since_read' },
    });
  });

  it('compares hashes, not sizes or times: same size and mtime with other bytes is a conflict', () => {
    const verdict = checkReadBeforeWrite({
      rel: 'a.txt',
      entry,
      current: { mtime_ms: 1000.5, size_bytes: 3, sha256: 'bbb' },
    });
    expect(verdict).toEqual({
      ok: false,
      code: 'CONFLICT',
      message: "File 'a.txt' has been modified since it was last read. ReadFile it again, then retry.",
      details: {
        reason: 'modified_since_read',
        expected: { mtime_ms: 1000.5, size_bytes: 3, sha256: 'aaa' },
        actual: { mtime_ms: 1000.5, size_bytes: 3, sha256: 'bbb' },
      },
    });
  });

  it('lets the same bytes through, noting an mtime-only change', () => {
    expect(
      checkReadBeforeWrite({ rel: 'a.txt', entry, current: { mtime_ms: 1000.5, size_bytes: 3, sha256: 'aaa' } }),
    ).toEqual({ ok: true });
    expect(
      checkReadBeforeWrite({ rel: 'a.txt', entry, current: { mtime_ms: 2000, size_bytes: 3, sha256: 'aaa' } }),
    ).toEqual({
      ok: true,
      lockNote: 'mtime_only_change',
    });
  });
});
