import { describe, expect, it } from 'vitest';
import {
  DIFF_PREVIEW_MAX_BYTES,
  DIFF_PREVIEW_MAX_LINES,
  diffPreview,
  truncatePreview,
} from '../../../src/activities/files/diff-preview.js';

describe('diffPreview', () => {
  it('produces an untruncated unified diff with counts for a small change', () => {
    const summary = diffPreview({ rel: 'a.txt', before: 'a\nb\n', after: 'a\nc\n' });
    expect(summary).toEqual({
      diff_preview: '--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n',
      diff_truncated: false,
      lines_added: 1,
      lines_removed: 1,
    });
  });

  it('is empty for identical texts', () => {
    expect(diffPreview({ rel: 'a.txt', before: 'same', after: 'same' })).toEqual({
      diff_preview: '',
      diff_truncated: false,
      lines_added: 0,
      lines_removed: 0,
    });
  });

  it('holds the byte limit when lines are long, and counts every changed line regardless', () => {
    const after = Array.from({ length: 30 }, (_, index) => `${index}:${'w'.repeat(1000)}`).join('\n');
    const summary = diffPreview({ rel: 'wide.txt', before: '', after, created: true });
    expect(summary.diff_truncated).toBe(true);
    expect(Buffer.byteLength(summary.diff_preview)).toBeLessThanOrEqual(DIFF_PREVIEW_MAX_BYTES);
    expect(summary.lines_added).toBe(30);
    expect(summary.diff_preview.startsWith('--- /dev/null\n+++ b/wide.txt\n')).toBe(true);
  });
});

describe('truncatePreview', () => {
  it('keeps at most 100 lines including the marker', () => {
    const preview = Array.from({ length: 150 }, (_, index) => `+${index}`).join('\n') + '\n';
    const { text, truncated } = truncatePreview(preview);
    const lines = text.slice(0, -1).split('\n');
    expect(truncated).toBe(true);
    expect(lines).toHaveLength(DIFF_PREVIEW_MAX_LINES);
    expect(lines.at(-1)).toBe('… [diff truncated: 51 more lines]');
  });

  it('leaves a preview of exactly 100 lines alone', () => {
    const preview = Array.from({ length: 100 }, (_, index) => `+${index}`).join('\n') + '\n';
    expect(truncatePreview(preview)).toEqual({ text: preview, truncated: false });
  });
});
