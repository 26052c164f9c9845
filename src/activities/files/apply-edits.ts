// Node: EditFile's matching and replacement (docs/tools.md §11.3 EditFile steps 4-8), pure so every rule is testable on
// strings.

/** One exact-match replacement. */
export interface EditSpec {
  old_string: string;
  new_string: string;
  replace_all: boolean;
}

/** The edited text, or the first rule an edit broke (nothing is applied then). */
export type EditPlan =
  | { ok: true; text: string; replacements: number; normalizedBefore: string; normalizedAfter: string }
  | { ok: false; message: string; details: Record<string, unknown> };

const MAX_LISTED_LINES = 10;

interface Range {
  start: number;
  end: number;
  edit: number;
  replacement: string;
}

/**
 * Applies all edits to `original`, all or nothing. Matching runs on the text with CRLF normalised to LF, and each
 * edit's occurrences are found in the original (not the progressively edited) text. Replacements are spliced into the
 * original at the mapped offsets, so bytes outside the matched ranges, including each line's own ending, are kept
 * exactly; new text takes the file's dominant line ending (CRLF iff CRLF endings outnumber bare LF ones).
 */
export function applyEdits(options: {
  original: string;
  edits: readonly EditSpec[];
  rel: string;
  multi: boolean;
}): EditPlan {
  const { original, edits, rel, multi } = options;
  const normalized = original.replace(/\r\n/g, '\n');
  const removedCarriageReturns = carriageReturnPositions(original);
  const useCrlf = removedCarriageReturns.length > countNewlines(normalized) - removedCarriageReturns.length;
  const lineStarts = lineStartOffsets(normalized);
  const label = (index: number) => (multi ? `edits[${index}].old_string` : 'old_string');

  const ranges: Range[] = [];
  for (const [index, edit] of edits.entries()) {
    const oldText = edit.old_string.replace(/\r\n/g, '\n');
    const newText = edit.new_string.replace(/\r\n/g, '\n');
    const starts = occurrences(normalized, oldText);
    if (starts.length === 0) {
      const near = whitespaceInsensitiveMatches(normalized, oldText).map((offset) => lineOf(lineStarts, offset));
      const hint =
        near.length > 0
          ? ` A match ignoring whitespace exists at line(s) ${near.join(', ')}; copy the exact text, including indentation, from ReadFile.`
          : ' Copy the exact text from the ReadFile output, without the line-number prefix.';
      return {
        ok: false,
        message: `${label(index)} was not found in '${rel}'.${hint}`,
        details: { reason: 'no_match', failed_index: index, ...(near.length > 0 ? { near_match_lines: near } : {}) },
      };
    }
    if (starts.length > 1 && !edit.replace_all) {
      const lines = starts.slice(0, MAX_LISTED_LINES).map((offset) => lineOf(lineStarts, offset));
      return {
        ok: false,
        message:
          `${label(index)} matches ${starts.length} locations in '${rel}' (lines ${lines.join(', ')}${starts.length > lines.length ? ', …' : ''}). ` +
          'Include more surrounding text to make it unique, or set replace_all=true.',
        details: { reason: 'multiple_matches', failed_index: index, match_count: starts.length, match_lines: lines },
      };
    }
    if (oldText === newText) {
      return {
        ok: false,
        message: `${label(index)} is identical to its new_string; the edit would change nothing.`,
        details: { reason: 'no_change', failed_index: index },
      };
    }
    for (const start of starts) ranges.push({ start, end: start + oldText.length, edit: index, replacement: newText });
  }

  ranges.sort((left, right) => left.start - right.start || left.edit - right.edit);
  // Occurrences of one edit never overlap each other, so any overlapping neighbours come from two different edits;
  // and if any two ranges overlap, some neighbouring pair in start order does.
  for (let index = 1; index < ranges.length; index++) {
    const previous = ranges[index - 1]!;
    const current = ranges[index]!;
    if (current.start < previous.end) {
      const pair = [Math.min(previous.edit, current.edit), Math.max(previous.edit, current.edit)];
      return {
        ok: false,
        message: `edits[${pair[0]}] and edits[${pair[1]}] overlap in '${rel}'; combine them into one edit.`,
        details: { reason: 'overlap', indexes: pair },
      };
    }
  }

  let text = original;
  for (let index = ranges.length - 1; index >= 0; index--) {
    const range = ranges[index]!;
    const start = toOriginalOffset(range.start, removedCarriageReturns);
    const end = toOriginalOffset(range.end, removedCarriageReturns);
    const replacement = useCrlf ? range.replacement.replace(/\n/g, '\r\n') : range.replacement;
    text = text.slice(0, start) + replacement + text.slice(end);
  }
  return {
    ok: true,
    text,
    replacements: ranges.length,
    normalizedBefore: normalized,
    normalizedAfter: text.replace(/\r\n/g, '\n'),
  };
}

/** Non-overlapping occurrences, left to right. */
function occurrences(haystack: string, needle: string): number[] {
  const found: number[] = [];
  for (let index = haystack.indexOf(needle); index !== -1; index = haystack.indexOf(needle, index + needle.length)) {
    found.push(index);
  }
  return found;
}

/** Offsets (in `haystack`) where `needle` matches once all whitespace is ignored on both sides; at most ten. */
function whitespaceInsensitiveMatches(haystack: string, needle: string): number[] {
  const squeezedNeedle = needle.replace(/\s+/g, '');
  if (squeezedNeedle === '') return [];
  const positions: number[] = [];
  let squeezed = '';
  for (let index = 0; index < haystack.length; index++) {
    const character = haystack[index]!;
    if (!/\s/.test(character)) {
      squeezed += character;
      positions.push(index);
    }
  }
  return occurrences(squeezed, squeezedNeedle)
    .slice(0, MAX_LISTED_LINES)
    .map((offset) => positions[offset]!);
}

/** For each "\r\n" in `original`, the offset its "\n" has once every "\r\n" became "\n"; ascending. */
function carriageReturnPositions(original: string): number[] {
  const positions: number[] = [];
  let removed = 0;
  for (let index = original.indexOf('\r\n'); index !== -1; index = original.indexOf('\r\n', index + 2)) {
    positions.push(index - removed);
    removed++;
  }
  return positions;
}

/** Maps an offset in the normalised text to the original: add one for every removed "\r" strictly before it. */
function toOriginalOffset(offset: number, removed: readonly number[]): number {
  let low = 0;
  let high = removed.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (removed[middle]! < offset) low = middle + 1;
    else high = middle;
  }
  return offset + low;
}

function countNewlines(text: string): number {
  let count = 0;
  for (let index = text.indexOf('\n'); index !== -1; index = text.indexOf('\n', index + 1)) count++;
  return count;
}

function lineStartOffsets(text: string): number[] {
  const starts = [0];
  for (let index = text.indexOf('\n'); index !== -1; index = text.indexOf('\n', index + 1)) starts.push(index + 1);
  return starts;
}

/** 1-based line number of an offset. */
function lineOf(lineStarts: readonly number[], offset: number): number {
  let low = 0;
  let high = lineStarts.length - 1;
  while (low < high) {
    const middle = (low + high + 1) >>> 1;
    if (lineStarts[middle]! <= offset) low = middle;
    else high = middle - 1;
  }
  return low + 1;
}
