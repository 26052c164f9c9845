// WriteFile executor (TOOL-SPEC C.11): create, or overwrite behind the read-before-write lock, atomically (C.8).
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { errorEnvelope } from '../../core/envelope.js';
import type { ErrorCode } from '../../core/envelope.js';
import { writeFile } from '../../tools/write-file.js';
import { createFileExclusively, replaceFileAtomically } from '../files/atomic-write.js';
import { looksBinary, readHead } from '../files/binary.js';
import { committedResult, contextWithPath, parseInput, resolvePathParam } from '../files/common.js';
import { diffPreview } from '../files/diff-preview.js';
import { errorCode, fileSystemErrorEnvelope, isMissingError } from '../files/errors.js';
import { sha256Hex } from '../files/hash.js';
import { removeJournal, sweepJournals, writeJournal } from '../files/journal.js';
import type { WriteJournalRecord } from '../files/journal.js';
import { checkReadBeforeWrite } from '../files/lock-gate.js';
import { withPathLock } from '../files/path-lock.js';
import { findIdempotentReplay } from '../files/replay.js';
import { readStable, statSnapshot } from '../files/snapshot.js';
import type { FileSnapshot } from '../files/snapshot.js';
import { decodeUtf8Lenient } from '../files/text.js';
import type { ToolActivityResult } from '../tool-request.js';
import type { ExecutorContext, ToolExecutor } from './types.js';

interface WriteTarget {
  rel: string;
  real: string;
  content: string;
}

/** Creates or overwrites a file, byte-exact (C.11 WriteFile). */
export const executeWriteFile: ToolExecutor = async (executor) => {
  const parsed = parseInput(writeFile, executor);
  if (!parsed.ok) return parsed.result;
  const resolved = await resolvePathParam(executor, parsed.input.path);
  if (!resolved.ok) return resolved.result;
  const target: WriteTarget = { rel: resolved.path.rel, real: resolved.path.real, content: parsed.input.content };
  const context = contextWithPath(executor, target.rel);
  return withPathLock(target.real, async () => {
    try {
      const replay = await findIdempotentReplay({ executor, tool: 'WriteFile', rel: target.rel, real: target.real });
      if (replay) return replay;
      let existing: FileSnapshot | undefined;
      try {
        existing = await statSnapshot(target.real);
      } catch (error) {
        if (!isMissingError(error)) throw error;
      }
      return existing ? await overwrite(executor, target, existing) : await create(executor, target);
    } catch (error) {
      // The file (or its directory) vanished between our stat and our read or commit.
      if (isMissingError(error)) {
        return failure(
          executor,
          target.rel,
          'CONFLICT',
          `File '${target.rel}' has been deleted since it was last read. ReadFile it again, then retry.`,
          { reason: 'deleted_since_read' },
        );
      }
      const envelope = fileSystemErrorEnvelope(error, {
        rel: target.rel,
        action: 'write',
        context,
        timeMs: executor.elapsedMs(),
      });
      if (envelope) return { envelope };
      throw error;
    }
  });
};

function failure(
  executor: ExecutorContext,
  rel: string,
  code: ErrorCode,
  message: string,
  details?: Record<string, unknown>,
): ToolActivityResult {
  return {
    envelope: errorEnvelope({
      code,
      message,
      details,
      context: contextWithPath(executor, rel),
      stats: { time_ms: executor.elapsedMs() },
    }),
  };
}

async function overwrite(executor: ExecutorContext, target: WriteTarget, info: FileSnapshot): Promise<ToolActivityResult> {
  const { rel, real } = target;
  if (info.isDirectory) return failure(executor, rel, 'IS_DIRECTORY', `'${rel}' is a directory; WriteFile needs a file path.`);
  if (!info.isFile) {
    return failure(executor, rel, 'INVALID_PARAM', `'${rel}' is not a regular file.`, { reason: 'not_regular_file' });
  }
  if (looksBinary(await readHead(real))) {
    return failure(executor, rel, 'BINARY_FILE', `'${rel}' is a binary file; WriteFile does not overwrite binary files.`);
  }
  const entry = executor.request.readState?.[rel];
  // No entry: say so before reading a possibly large file only to refuse.
  if (!entry) {
    const gate = checkReadBeforeWrite({ rel, entry, current: null });
    if (!gate.ok) return failure(executor, rel, gate.code, gate.message, gate.details);
  }
  const read = await readStable(real);
  if (!read.ok) {
    return failure(executor, rel, 'CONFLICT', `File '${rel}' changed while it was being read. ReadFile it again, then retry.`, {
      reason: 'changed_during_read',
    });
  }
  const { bytes, snapshot } = read;
  if (looksBinary(bytes)) {
    return failure(executor, rel, 'BINARY_FILE', `'${rel}' is a binary file; WriteFile does not overwrite binary files.`);
  }
  const expectedSha = sha256Hex(bytes);
  const gate = checkReadBeforeWrite({
    rel,
    entry,
    current: { mtime_ms: snapshot.mtimeMs, size_bytes: snapshot.size, sha256: expectedSha },
  });
  if (!gate.ok) return failure(executor, rel, gate.code, gate.message, gate.details);

  const newBytes = Buffer.from(target.content, 'utf8');
  const intendedSha = sha256Hex(newBytes);
  const decoded = decodeUtf8Lenient(bytes);
  // Keep a BOM visible in the diff, so dropping or adding one shows up as a change.
  const before = (decoded.bom ? '\uFEFF' : '') + decoded.text;
  const diff = diffPreview({ rel, before, after: target.content });
  const result = {
    text: `Overwrote '${rel}' (+${diff.lines_added}/-${diff.lines_removed} lines, ${newBytes.length} bytes).`,
    data: {
      path: rel,
      operation: 'overwrite',
      bytes_written: newBytes.length,
      lines_added: diff.lines_added,
      lines_removed: diff.lines_removed,
      diff_preview: diff.diff_preview,
      diff_truncated: diff.diff_truncated,
      ...(gate.lockNote ? { lock_note: gate.lockNote } : {}),
    },
    stats: { new_size_bytes: newBytes.length, new_sha256: intendedSha },
  };
  const record: WriteJournalRecord = {
    version: 1,
    tool: 'WriteFile',
    rel,
    intended_sha256: intendedSha,
    expected_sha256: expectedSha,
    result,
  };
  const commit = await replaceFileAtomically({
    target: real,
    content: newBytes,
    expected: snapshot,
    beforeCommit: () => writeJournal(executor.root, executor.activityKey, record),
  });
  if (!commit.ok) {
    await removeJournal(executor.root, executor.activityKey);
    return failure(
      executor,
      rel,
      'CONFLICT',
      `File '${rel}' was modified by another process while it was being written; nothing was written. ReadFile it again, then retry.`,
      { reason: commit.reason },
    );
  }
  await sweepJournals(executor.root);
  return committedResult({ executor, rel, result, snapshot: commit.snapshot, sha256: intendedSha, source: 'write' });
}

async function create(executor: ExecutorContext, target: WriteTarget): Promise<ToolActivityResult> {
  const { rel, real } = target;
  const entry = executor.request.readState?.[rel];
  if (entry) {
    const gate = checkReadBeforeWrite({ rel, entry, current: null });
    if (!gate.ok) return failure(executor, rel, gate.code, gate.message, gate.details);
  }
  try {
    await mkdir(path.dirname(real), { recursive: true });
  } catch (error) {
    const code = errorCode(error);
    if (code === 'EEXIST' || code === 'ENOTDIR') {
      return failure(executor, rel, 'INVALID_PARAM', `Cannot create '${rel}': a parent path is not a directory.`, {
        reason: 'not_a_directory',
      });
    }
    throw error;
  }
  const newBytes = Buffer.from(target.content, 'utf8');
  const intendedSha = sha256Hex(newBytes);
  const diff = diffPreview({ rel, before: '', after: target.content, created: true });
  const result = {
    text: `Created '${rel}' (${newBytes.length} bytes).`,
    data: {
      path: rel,
      operation: 'create',
      bytes_written: newBytes.length,
      lines_added: diff.lines_added,
      lines_removed: diff.lines_removed,
      diff_preview: diff.diff_preview,
      diff_truncated: diff.diff_truncated,
    },
    stats: { new_size_bytes: newBytes.length, new_sha256: intendedSha },
  };
  const record: WriteJournalRecord = {
    version: 1,
    tool: 'WriteFile',
    rel,
    intended_sha256: intendedSha,
    expected_sha256: null,
    result,
  };
  const commit = await createFileExclusively({
    target: real,
    content: newBytes,
    beforeCommit: () => writeJournal(executor.root, executor.activityKey, record),
  });
  if (!commit.ok) {
    await removeJournal(executor.root, executor.activityKey);
    return failure(
      executor,
      rel,
      'CONFLICT',
      `File '${rel}' was created by another process while it was being written; nothing was written. ReadFile it, then retry.`,
      { reason: commit.reason },
    );
  }
  await sweepJournals(executor.root);
  return committedResult({ executor, rel, result, snapshot: commit.snapshot, sha256: intendedSha, source: 'write' });
}
