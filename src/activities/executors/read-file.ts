// Node: ReadFile executor (docs/tools.md §11.1): numbered lines of a UTF-8 file, and a fresh read-state entry (§8). The
// file is streamed once; only the lines returned are held in memory (files/line-scan.ts).
import { errorEnvelope, okEnvelope } from '../../protocol/envelope.js';
import type { ErrorCode } from '../../protocol/envelope.js';
import type { ReadState } from '../../protocol/read-state.js';
import type { FileHandle } from 'node:fs/promises';
import { readFile } from '../../tools/read-file.js';
import { looksBinary, readHeadOf } from '../files/binary.js';
import { contextWithPath, parseInput, readStateEntry, resolvePathParam } from '../files/common.js';
import { isLinkInWorkspace, openConfinedForRead } from '../files/confined.js';
import { fileSystemErrorEnvelope, isMissingError } from '../files/errors.js';
import { scanLines } from '../files/line-scan.js';
import type { LineScan } from '../files/line-scan.js';
import { handleSnapshot, sameVersion, statSnapshot } from '../files/snapshot.js';
import type { FileSnapshot } from '../files/snapshot.js';
import { similarNames } from '../files/suggestions.js';
import { cutAtCodeUnits, hasUtf8Bom } from '../files/text.js';
import type { ToolActivityResult } from '../../protocol/tool-activity.js';
import type { ExecutorContext, ToolExecutor } from './types.js';

/** Longest line shown, in characters, before it is cut. */
export const MAX_LINE_CHARS = 2000;
/** Most UTF-8 bytes of formatted `content` per call. */
export const MAX_CONTENT_BYTES = 40_960;
const LINE_CUT_MARKER = '… [line truncated]';

/** Formats one line: right-aligned number, " | ", text. */
export function formatLine(lineNumber: number, text: string): string {
  return `${String(lineNumber).padStart(4, ' ')} | ${text}\n`;
}

/** Reads a text file with line numbers (§11.1 ReadFile). */
export const executeReadFile: ToolExecutor = async (executor) => {
  const parsed = parseInput(readFile, executor);
  if (!parsed.ok) return parsed.result;
  const { path: inputPath, offset, limit } = parsed.input;
  const resolved = await resolvePathParam(executor, inputPath);
  if (!resolved.ok) return resolved.result;
  const { rel, real } = resolved.path;
  const context = contextWithPath(executor, rel);
  try {
    return await readResolved(executor, { rel, real, offset, limit });
  } catch (error) {
    if (isMissingError(error)) return notFound(executor, rel, real);
    const envelope = fileSystemErrorEnvelope(error, { rel, action: 'read', context, timeMs: executor.elapsedMs() });
    if (envelope) return { envelope };
    throw error;
  }
};

async function readResolved(
  executor: ExecutorContext,
  target: { rel: string; real: string; offset: number; limit: number },
): Promise<ToolActivityResult> {
  const { rel, real, offset, limit } = target;
  const context = contextWithPath(executor, rel);
  const fail = (code: ErrorCode, message: string, details?: Record<string, unknown>): ToolActivityResult => ({
    envelope: errorEnvelope({ code, message, details, context, stats: { time_ms: executor.elapsedMs() } }),
  });
  const binary = (): ToolActivityResult => fail('BINARY_FILE', `'${rel}' is a binary file; ReadFile only reads text.`);
  const changed = (): ToolActivityResult =>
    fail('CONFLICT', `File '${rel}' changed while it was being read. Call ReadFile again.`, {
      reason: 'changed_during_read',
    });

  const info = await statSnapshot(real);
  if (info.isDirectory) return fail('IS_DIRECTORY', `'${rel}' is a directory; use Glob.`);
  // FIFOs, sockets and devices: opening one could block forever or never end.
  if (!info.isFile) return fail('INVALID_PARAM', `'${rel}' is not a regular file.`, { reason: 'not_regular_file' });

  let read: StreamedRead | undefined;
  for (let attempt = 0; attempt < 2 && !read; attempt++) {
    let handle;
    try {
      handle = await openConfinedForRead(executor.root, rel);
    } catch (error) {
      // Resolved with every link followed, so a link on the way now was put there since.
      if (isLinkInWorkspace(error)) return changed();
      throw error;
    }
    try {
      const outcome = await readWindow(handle, { offset, limit, signal: executor.signal });
      if (outcome === 'binary') return binary();
      if (outcome !== 'changed') read = outcome;
    } finally {
      await handle.close();
    }
  }
  if (!read) return changed();
  const { scan, snapshot, encoding, window } = read;
  const { sha256, totalLines } = scan;

  if (totalLines === 0 && offset !== 1) {
    return fail('INVALID_PARAM', `offset (${offset}) exceeds file length (0 lines). The file is empty; use offset=1.`, {
      reason: 'out_of_range',
      total_lines: 0,
    });
  }
  if (offset > totalLines && totalLines > 0) {
    return fail(
      'INVALID_PARAM',
      `offset (${offset}) exceeds file length (${totalLines} lines). Valid range: 1..${totalLines}.`,
      { reason: 'out_of_range', total_lines: totalLines },
    );
  }

  const { content, endLine, lineCut, byteLimited } = window;
  const linesRead = Math.max(0, endLine - offset + 1);
  const truncationReasons: string[] = [];
  if (endLine < totalLines) truncationReasons.push(byteLimited ? 'byte_limit' : 'line_limit');
  if (lineCut) truncationReasons.push('line_length');
  const truncated = truncationReasons.length > 0;
  const nextOffset = endLine < totalLines ? endLine + 1 : null;
  const previous: ReadState | undefined = executor.request.readState?.[rel];
  const modifiedExternally = previous !== undefined && previous.sha256 !== sha256;

  let text =
    totalLines === 0
      ? `Read 0 lines from '${rel}' (the file is empty).`
      : `Read ${linesRead} lines from '${rel}' (lines ${offset}-${endLine} of ${totalLines}).`;
  if (nextOffset !== null) text += ` Use offset=${nextOffset} to continue.`;

  const envelope = okEnvelope({
    status: truncated || encoding === 'utf-8-replace' ? 'partial' : 'success',
    data: {
      path: rel,
      content,
      start_line: offset,
      end_line: endLine,
      lines_read: linesRead,
      total_lines: totalLines,
      truncated,
      truncation_reasons: truncationReasons,
      next_offset: nextOffset,
      encoding,
      modified_externally: modifiedExternally,
    },
    text,
    stats: {
      time_ms: executor.elapsedMs(),
      file_size_bytes: snapshot.size,
      file_mtime_ms: snapshot.mtimeMs,
      sha256,
      lines_read: linesRead,
      total_lines: totalLines,
    },
    context,
  });
  // `partial` marks an entry made from a view of less than the whole file; the lock still covers all of it (sha256).
  const partialView = offset > 1 || endLine < totalLines || lineCut;
  return {
    envelope,
    readStateUpdate: {
      key: rel,
      entry: readStateEntry({ rel, snapshot, sha256, source: 'read', partial: partialView }),
    },
  };
}

/** The formatted lines of one call (§11.1 ReadFile step 5), built while the file streams past. */
interface FormattedWindow {
  content: string;
  endLine: number;
  lineCut: boolean;
  byteLimited: boolean;
}

interface StreamedRead {
  scan: LineScan;
  snapshot: FileSnapshot;
  encoding: 'utf-8' | 'utf-8-replace';
  window: FormattedWindow;
}

/**
 * One pass over the opened file: binary check on its head, then the whole file hashed and counted while only the
 * lines `offset`..`offset + limit - 1` are kept and formatted, stopping at the byte cap. The file's stat before and
 * after must agree, or the read is `changed` (§11.1 ReadFile step 2).
 */
async function readWindow(
  handle: FileHandle,
  options: { offset: number; limit: number; signal: AbortSignal },
): Promise<StreamedRead | 'binary' | 'changed'> {
  const { offset, limit } = options;
  const before = await handleSnapshot(handle);
  if (!before.isFile) return 'changed';
  const head = await readHeadOf(handle);
  if (looksBinary(head)) return 'binary';
  const window: FormattedWindow = { content: '', endLine: offset - 1, lineCut: false, byteLimited: false };
  let contentBytes = 0;
  const scan = await scanLines(handle, {
    firstLine: offset,
    lastLine: offset + limit - 1,
    // Every UTF-16 unit takes at least one byte and at most three bytes make one, so this many bytes always decode to
    // more than MAX_LINE_CHARS units when the line is longer.
    maxLineBytes: 3 * (MAX_LINE_CHARS + 1),
    bom: hasUtf8Bom(head),
    signal: options.signal,
    onLine: ({ lineNumber, bytes, cut: bytesCut }) => {
      let text = LINE_DECODER.decode(bytes);
      let cut = false;
      if (bytesCut || text.length > MAX_LINE_CHARS) {
        text = cutAtCodeUnits(text, MAX_LINE_CHARS) + LINE_CUT_MARKER;
        cut = true;
      }
      const formatted = formatLine(lineNumber, text);
      const formattedBytes = Buffer.byteLength(formatted, 'utf8');
      if (lineNumber > offset && contentBytes + formattedBytes > MAX_CONTENT_BYTES) {
        window.byteLimited = true;
        return false;
      }
      window.content += formatted;
      contentBytes += formattedBytes;
      window.endLine = lineNumber;
      window.lineCut ||= cut;
      return true;
    },
  });
  const after = await handleSnapshot(handle);
  if (!sameVersion(before, after) || scan.bytesRead !== after.size) return 'changed';
  return { scan, snapshot: after, encoding: scan.validUtf8 ? 'utf-8' : 'utf-8-replace', window };
}

// Lenient, and a U+FEFF inside the file is text: only the file's leading BOM is dropped (by the scan).
const LINE_DECODER = new TextDecoder('utf-8', { ignoreBOM: true });

async function notFound(executor: ExecutorContext, rel: string, real: string): Promise<ToolActivityResult> {
  const suggestions = await similarNames(real, rel);
  const hint = suggestions.length > 0 ? ` Did you mean: ${suggestions.join(', ')}?` : '';
  return {
    envelope: errorEnvelope({
      code: 'NOT_FOUND',
      message: `File '${rel}' does not exist.${hint}`,
      details: { suggestions },
      context: contextWithPath(executor, rel),
      stats: { time_ms: executor.elapsedMs() },
    }),
    // A vanished file must not keep its entry: the model recovers with ReadFile (NOT_FOUND) then WriteFile (create).
    readStateUpdate: { key: rel, entry: null },
  };
}
