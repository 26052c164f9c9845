import { describe, expect, it } from 'vitest';
import { applyEdits } from '../../../src/activities/files/apply-edits.js';
import type { EditSpec } from '../../../src/activities/files/apply-edits.js';

const one = (old_string: string, new_string: string, replace_all = false): EditSpec => ({
  old_string,
  new_string,
  replace_all,
});
const run = (original: string, edits: EditSpec[], multi = edits.length > 1) =>
  applyEdits({ original, edits, rel: 'f.txt', multi });

describe('applyEdits', () => {
  it('maps matches back onto CRLF text so a match may start or end at a line break', () => {
    expect(run('a\r\nb\r\nc\r\n', [one('\nb', '\nB')])).toMatchObject({ ok: true, text: 'a\r\nB\r\nc\r\n' });
    expect(run('a\r\nb\r\nc\r\n', [one('b\n', 'X')])).toMatchObject({ ok: true, text: 'a\r\nXc\r\n' });
    expect(run('a\r\nb\r\n', [one('a', 'A')])).toMatchObject({ ok: true, text: 'A\r\nb\r\n' });
  });

  it('uses LF for new text when bare LF endings are the majority', () => {
    expect(run('a\nb\nc\r\n', [one('a', 'x\ny')])).toMatchObject({ ok: true, text: 'x\ny\nb\nc\r\n' });
  });

  it('uses CRLF for new text only when CRLF endings strictly outnumber bare LF ones', () => {
    expect(run('a\r\nb\n', [one('a', 'x\ny')])).toMatchObject({ ok: true, text: 'x\ny\r\nb\n' });
    expect(run('a\r\nb\r\nc\n', [one('a', 'x\ny')])).toMatchObject({ ok: true, text: 'x\r\ny\r\nb\r\nc\n' });
  });

  it('keeps a lone CR that is not part of a line ending', () => {
    expect(run('progress\r50%\n', [one('50%', '100%')])).toMatchObject({ ok: true, text: 'progress\r100%\n' });
  });

  it('allows edits whose ranges touch but do not overlap', () => {
    expect(run('abcd', [one('ab', 'X'), one('cd', 'Y')])).toMatchObject({ ok: true, text: 'XY', replacements: 2 });
  });

  it('reports the same old_string in two edits as an overlap', () => {
    expect(run('abc', [one('b', 'x'), one('b', 'y')])).toMatchObject({
      ok: false,
      details: { reason: 'overlap', indexes: [0, 1] },
    });
  });

  it('finds non-overlapping occurrences left to right', () => {
    expect(run('aaaa', [one('aa', 'b', true)])).toMatchObject({ ok: true, text: 'bb', replacements: 2 });
    expect(run('aaa', [one('aa', 'b')])).toMatchObject({ ok: true, text: 'ba', replacements: 1 });
  });

  it('checks no_match before multiple_matches before no_change, per edit in order', () => {
    expect(run('x x', [one('x', 'x')])).toMatchObject({ ok: false, details: { reason: 'multiple_matches' } });
    expect(run('x', [one('x', 'x')])).toMatchObject({ ok: false, details: { reason: 'no_change', failed_index: 0 } });
    expect(run('x', [one('x', 'y'), one('q', 'q')])).toMatchObject({
      ok: false,
      details: { reason: 'no_match', failed_index: 1 },
    });
  });

  it('lists several whitespace-insensitive near matches by line', () => {
    const plan = run('if (a) {\n}\nif(a){\n}\n', [one('if  ( a )  {', 'x')]);
    expect(plan).toMatchObject({ ok: false, details: { reason: 'no_match', near_match_lines: [1, 3] } });
  });

  it('counts lines in match_lines on CRLF text the same as on LF text', () => {
    const plan = run('x\r\ny\r\nx\r\n', [one('x', 'z')]);
    expect(plan).toMatchObject({ ok: false, details: { match_lines: [1, 3], match_count: 2 } });
  });

  it('returns LF-normalised before and after texts for the diff', () => {
    const plan = run('a\r\nb\r\n', [one('b', 'c')]);
    expect(plan).toMatchObject({ ok: true, normalizedBefore: 'a\nb\n', normalizedAfter: 'a\nc\n' });
  });
});
