// Node: the unified-diff preview of WriteFile and EditFile (docs/tools.md §11): ≤ 100 lines and ≤ 10,240 bytes.
import { formatPatch, structuredPatch } from 'diff';
import type { StructuredPatch, StructuredPatchHunk } from 'diff';

/** Most lines in a preview, the truncation marker included. */
export const DIFF_PREVIEW_MAX_LINES = 100;
/** Most UTF-8 bytes in a preview, the truncation marker included. */
export const DIFF_PREVIEW_MAX_BYTES = 10_240;
const CONTEXT_LINES = 3;
// Myers' diff is O(N·D); a rewrite of a huge file must not stall the activity, so past this we diff coarsely.
const DIFF_TIMEOUT_MS = 1_000;

/** What the write tools report about a change. */
export interface DiffSummary {
  diff_preview: string;
  diff_truncated: boolean;
  lines_added: number;
  lines_removed: number;
}

/** Diffs two texts; `created` labels the old side /dev/null. */
export function diffPreview(options: { rel: string; before: string; after: string; created?: boolean }): DiffSummary {
  const oldName = options.created ? '/dev/null' : `a/${options.rel}`;
  const newName = `b/${options.rel}`;
  const patch =
    structuredPatch(oldName, newName, options.before, options.after, undefined, undefined, {
      context: CONTEXT_LINES,
      timeout: DIFF_TIMEOUT_MS,
    }) ?? coarsePatch(oldName, newName, options.before, options.after);
  let added = 0;
  let removed = 0;
  for (const hunk of patch.hunks) {
    for (const line of hunk.lines) {
      if (line.startsWith('+')) added++;
      else if (line.startsWith('-')) removed++;
    }
  }
  const { text, truncated } = truncatePreview(patch.hunks.length === 0 ? '' : stripPatchBanner(formatPatch(patch)));
  return { diff_preview: text, diff_truncated: truncated, lines_added: added, lines_removed: removed };
}

/** Cuts a preview to the line and byte limits, ending it with a marker that says how much was left out. */
export function truncatePreview(preview: string): { text: string; truncated: boolean } {
  const lines = preview.endsWith('\n') ? preview.slice(0, -1).split('\n') : preview.split('\n');
  if (preview === '') return { text: '', truncated: false };
  if (lines.length <= DIFF_PREVIEW_MAX_LINES && Buffer.byteLength(preview, 'utf8') <= DIFF_PREVIEW_MAX_BYTES) {
    return { text: preview, truncated: false };
  }
  const kept: string[] = [];
  let bytes = 0;
  // Room for the marker line: its count has at most 7 digits for any file under the tools' size limits.
  const markerReserve = Buffer.byteLength('… [diff truncated: 9999999 more lines]\n', 'utf8');
  for (const line of lines) {
    const lineBytes = Buffer.byteLength(line, 'utf8') + 1;
    if (kept.length >= DIFF_PREVIEW_MAX_LINES - 1 || bytes + lineBytes + markerReserve > DIFF_PREVIEW_MAX_BYTES) break;
    kept.push(line);
    bytes += lineBytes;
  }
  kept.push(`… [diff truncated: ${lines.length - kept.length} more lines]`);
  return { text: `${kept.join('\n')}\n`, truncated: true };
}

// formatPatch opens with "Index:" and "====" lines that carry nothing the ---/+++ headers do not.
function stripPatchBanner(formatted: string): string {
  const start = formatted.indexOf('--- ');
  return start === -1 ? formatted : formatted.slice(start);
}

/** One hunk spanning everything between the common prefix and the common suffix: correct, if not minimal. */
function coarsePatch(oldName: string, newName: string, before: string, after: string): StructuredPatch {
  const oldLines = splitForDiff(before);
  const newLines = splitForDiff(after);
  let prefix = 0;
  while (prefix < oldLines.length && prefix < newLines.length && oldLines[prefix] === newLines[prefix]) prefix++;
  let suffix = 0;
  while (
    suffix < oldLines.length - prefix &&
    suffix < newLines.length - prefix &&
    oldLines[oldLines.length - 1 - suffix] === newLines[newLines.length - 1 - suffix]
  ) {
    suffix++;
  }
  const leading = oldLines.slice(Math.max(0, prefix - CONTEXT_LINES), prefix);
  const trailing = oldLines.slice(oldLines.length - suffix, oldLines.length - suffix + CONTEXT_LINES);
  const removed = oldLines.slice(prefix, oldLines.length - suffix);
  const added = newLines.slice(prefix, newLines.length - suffix);
  const hunk: StructuredPatchHunk = {
    oldStart: prefix - leading.length + 1,
    oldLines: leading.length + removed.length + trailing.length,
    newStart: prefix - leading.length + 1,
    newLines: leading.length + added.length + trailing.length,
    lines: [
      ...leading.map((line) => ` ${line}`),
      ...removed.map((line) => `-${line}`),
      ...added.map((line) => `+${line}`),
      ...trailing.map((line) => ` ${line}`),
    ],
  };
  return {
    oldFileName: oldName,
    newFileName: newName,
    oldHeader: undefined,
    newHeader: undefined,
    hunks: removed.length + added.length > 0 ? [hunk] : [],
  };
}

function splitForDiff(text: string): string[] {
  if (text === '') return [];
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}
