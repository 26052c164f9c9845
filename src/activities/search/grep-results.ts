// Node: what a Grep engine hands back, and the one place that turns it into docs/tools.md §11.5 results. Both engines
// feed the same assembler, so limits, context merging, ordering and line capping cannot differ between them.
import { cutAtCodeUnits } from '../files/text.js';
import { compareCodeUnits } from './walk.js';

/** Grep's output modes (§11.5). */
export type GrepMode = 'content' | 'files_with_matches' | 'count';

/** The matches an engine found in one file. */
export interface FileHits {
  /** Workspace-relative path. */
  file: string;
  /** Matching line numbers (1-based, ascending); in content mode at least the first `perFileCap` of them. */
  matchLines: number[];
  /** Matching lines in the file: exact in count mode, at least 1 in files_with_matches mode. */
  matchCount: number;
  /** Text (without its line terminator) of the matching lines and of every line within `context` of one. */
  lines: Map<number, string>;
}

/** What one engine run produced. */
export interface EngineOutput {
  hits: FileHits[];
  timedOut: boolean;
}

/** One content-mode result. */
export interface GrepMatch {
  file: string;
  line: number;
  text: string;
  before?: string[];
  after?: string[];
}

/** The mode-specific part of Grep's `data` (engine fields are added by the caller). */
export interface GrepResultData {
  matches?: GrepMatch[];
  files?: string[];
  counts?: { file: string; count: number }[];
  count: number;
  files_searched: number;
  truncated: boolean;
  truncation_reasons: string[];
}

/** Longest line returned, marker included (§11). */
export const MAX_GREP_LINE_CHARS = 2000;
/** Appended to a line cut at MAX_GREP_LINE_CHARS. */
export const GREP_LINE_MARKER = '… [truncated]';

/**
 * How many matching lines an engine must report per file before it may stop reading it: one more than `limit` in
 * content mode (so truncation is visible), the first match for files_with_matches, all of them for count.
 */
export function perFileCap(mode: GrepMode, limit: number): number {
  if (mode === 'content') return limit + 1;
  return mode === 'files_with_matches' ? 1 : Number.POSITIVE_INFINITY;
}

/** Whether the files searched so far (in path order) already decide the result, so later files can be skipped. */
export function hasEnough(hits: readonly FileHits[], mode: GrepMode, limit: number): boolean {
  if (mode !== 'content') return hits.length > limit;
  let total = 0;
  for (const hit of hits) total += hit.matchLines.length;
  return total > limit;
}

/** Cuts a line to MAX_GREP_LINE_CHARS including the marker; reports whether it did. */
export function capLine(text: string): { text: string; cut: boolean } {
  if (text.length <= MAX_GREP_LINE_CHARS) return { text, cut: false };
  return { text: cutAtCodeUnits(text, MAX_GREP_LINE_CHARS - GREP_LINE_MARKER.length) + GREP_LINE_MARKER, cut: true };
}

/**
 * Builds the §11 result: sorted by (file, line); `limit` counts matching lines in content mode and files otherwise;
 * context never counts. Context is merged: a line shown after one match is not repeated before the next, and the
 * lines after a match stop where the next returned match begins.
 */
export function assembleGrepResult(options: {
  hits: readonly FileHits[];
  mode: GrepMode;
  limit: number;
  context: number;
  filesSearched: number;
  timedOut: boolean;
}): GrepResultData {
  const { mode, limit, context } = options;
  const hits = options.hits
    .filter((hit) => hit.matchCount > 0)
    .sort((left, right) => compareCodeUnits(left.file, right.file));
  const reasons = new Set<string>();
  const base = { files_searched: options.filesSearched };
  const finish = (
    data: Omit<GrepResultData, 'truncated' | 'truncation_reasons' | 'files_searched'>,
  ): GrepResultData => {
    if (options.timedOut) reasons.add('timeout');
    const truncation_reasons = ['match_limit', 'line_length', 'timeout'].filter((reason) => reasons.has(reason));
    return { ...data, ...base, truncated: truncation_reasons.length > 0, truncation_reasons };
  };

  if (mode === 'files_with_matches') {
    if (hits.length > limit) reasons.add('match_limit');
    const files = hits.slice(0, limit).map((hit) => hit.file);
    return finish({ files, count: files.length });
  }
  if (mode === 'count') {
    if (hits.length > limit) reasons.add('match_limit');
    const counts = hits.slice(0, limit).map((hit) => ({ file: hit.file, count: hit.matchCount }));
    return finish({ counts, count: counts.reduce((sum, entry) => sum + entry.count, 0) });
  }

  const capped = (text: string) => {
    const result = capLine(text);
    if (result.cut) reasons.add('line_length');
    return result.text;
  };
  const matches: GrepMatch[] = [];
  let remaining = limit;
  for (const hit of hits) {
    if (remaining <= 0) {
      reasons.add('match_limit');
      break;
    }
    const kept = hit.matchLines.slice(0, remaining);
    if (kept.length < hit.matchLines.length) reasons.add('match_limit');
    remaining -= kept.length;
    let shownThrough = 0;
    for (const [position, line] of kept.entries()) {
      const match: GrepMatch = { file: hit.file, line, text: capped(hit.lines.get(line) ?? '') };
      if (context > 0) {
        const before: string[] = [];
        for (let number = Math.max(line - context, shownThrough + 1, 1); number < line; number++) {
          const text = hit.lines.get(number);
          if (text !== undefined) before.push(capped(text));
        }
        const nextMatch = kept[position + 1] ?? Number.POSITIVE_INFINITY;
        const after: string[] = [];
        for (let number = line + 1; number <= line + context && number < nextMatch; number++) {
          const text = hit.lines.get(number);
          // A missing line is past the end of the file.
          if (text === undefined) break;
          after.push(capped(text));
        }
        if (before.length > 0) match.before = before;
        if (after.length > 0) match.after = after;
        shownThrough = line + after.length;
      } else {
        shownThrough = line;
      }
      matches.push(match);
    }
  }
  return finish({ matches, count: matches.length });
}
