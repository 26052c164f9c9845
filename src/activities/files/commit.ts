// Node: the write path WriteFile and EditFile share (docs/tools.md §8): the path lock and replay check around a write,
// reading an existing file behind the read-before-write gate, then journaling the intent, committing atomically and
// reporting the new version for the read-state store.
import type { ErrorCode } from '../../protocol/envelope.js';
import type { ToolActivityResult } from '../../protocol/tool-activity.js';
import type { ExecutorContext } from '../executors/types.js';
import { journalDirectory } from '../worker-data.js';
import { createFileExclusively, removeLeftoverTemps, replaceFileAtomically } from './atomic-write.js';
import { looksBinary, readHeadOf } from './binary.js';
import { committedResult, contextWithPath, pathFailure } from './common.js';
import { isLinkInWorkspace, openConfinedForRead, splitParent, withConfinedDirectory } from './confined.js';
import type { LinkInWorkspaceError } from './confined.js';
import { fileSystemErrorEnvelope, isMissingError } from './errors.js';
import { sha256Hex } from '../../store/object-key.js';
import { removeJournal, sweepJournals, writeJournal } from './journal.js';
import type { WriteJournalRecord } from './journal.js';
import { checkReadBeforeWrite } from './lock-gate.js';
import { withPathLock } from './path-lock.js';
import { findIdempotentReplay } from './replay.js';
import { readStable } from './snapshot.js';
import type { FileSnapshot } from './snapshot.js';

/** The two tools that write files. */
export type WriteTool = WriteJournalRecord['tool'];

const BINARY_REFUSAL: Record<WriteTool, string> = {
  WriteFile: 'WriteFile does not overwrite binary files.',
  EditFile: 'EditFile only edits text.',
};

/**
 * Runs `write` under the path lock of `real`. With `replay`, a retry whose write already landed reports the original
 * result instead (§8 durable retry). A file or directory that goes missing midway is answered by `onMissing`; other
 * file-system errors the model can act on become envelopes, and the rest are thrown.
 */
export function lockedWrite(options: {
  executor: ExecutorContext;
  tool: WriteTool;
  rel: string;
  real: string;
  replay: boolean;
  write: () => Promise<ToolActivityResult>;
  onMissing: () => ToolActivityResult | Promise<ToolActivityResult>;
}): Promise<ToolActivityResult> {
  const { executor, tool, rel, real } = options;
  return withPathLock(real, async () => {
    try {
      // An earlier attempt killed between its temp file and the rename left the temp file behind.
      if (executor.attempt > 1) await removeTempsOfEarlierAttempts(executor, rel);
      if (options.replay) {
        const replay = await findIdempotentReplay({ executor, tool, rel, real });
        if (replay) return replay;
      }
      return await options.write();
    } catch (error) {
      if (isLinkInWorkspace(error)) return linkRefusal(executor, rel, error);
      if (isMissingError(error)) return options.onMissing();
      const context = contextWithPath(executor, rel);
      const envelope = fileSystemErrorEnvelope(error, { rel, action: 'write', context, timeMs: executor.elapsedMs() });
      if (envelope) return { envelope };
      throw error;
    }
  });
}

async function removeTempsOfEarlierAttempts(executor: ExecutorContext, rel: string): Promise<void> {
  const { dir, name } = splitParent(rel);
  try {
    await withConfinedDirectory(executor.root, dir, {}, (directory) =>
      removeLeftoverTemps({ directory, name }, executor.activityKey),
    );
  } catch (error) {
    // No directory yet (a create), or one the write itself will refuse with a clear error.
    if (!isMissingError(error) && !isLinkInWorkspace(error)) throw error;
  }
}

/**
 * `rel` was resolved with every link on the way followed, so a component that is a link (or not a directory) when the
 * write opens it was put there since, or is a file where a directory is needed.
 */
function linkRefusal(executor: ExecutorContext, rel: string, error: LinkInWorkspaceError): ToolActivityResult {
  if (error.why === 'not_directory') {
    return pathFailure(executor, rel, 'INVALID_PARAM', `Cannot create '${rel}': a parent path is not a directory.`, {
      reason: 'not_a_directory',
      component: error.rel,
    });
  }
  return pathFailure(
    executor,
    rel,
    'CONFLICT',
    `'${error.rel}' changed into a symbolic link while '${rel}' was being written; nothing was written. Retry the call.`,
    { reason: 'path_changed', component: error.rel },
  );
}

/** An existing text file read whole, with the gate's verdict that it may be written. */
export interface GatedRead {
  bytes: Buffer;
  snapshot: FileSnapshot;
  /** sha256 of `bytes`: what the file must still hold when the write commits. */
  sha256: string;
  lockNote?: 'mtime_only_change';
}

/**
 * Checks that `info` is a regular text file, reads it in one version and applies the read-before-write gate.
 * Anything that stops the write comes back as the error result.
 */
export async function readForWrite(options: {
  executor: ExecutorContext;
  tool: WriteTool;
  rel: string;
  info: FileSnapshot;
}): Promise<{ ok: true; read: GatedRead } | { ok: false; result: ToolActivityResult }> {
  const { executor, tool, rel, info } = options;
  const refuse = (code: ErrorCode, message: string, details?: Record<string, unknown>) => ({
    ok: false as const,
    result: pathFailure(executor, rel, code, message, details),
  });
  if (info.isDirectory) return refuse('IS_DIRECTORY', `'${rel}' is a directory; ${tool} needs a file path.`);
  if (!info.isFile) return refuse('INVALID_PARAM', `'${rel}' is not a regular file.`, { reason: 'not_regular_file' });
  const binaryMessage = `'${rel}' is a binary file; ${BINARY_REFUSAL[tool]}`;
  const openFile = () => openConfinedForRead(executor.root, rel);
  const head = await openFile();
  try {
    if (looksBinary(await readHeadOf(head))) return refuse('BINARY_FILE', binaryMessage);
  } finally {
    await head.close();
  }
  const entry = executor.request.readState?.[rel];
  // No entry: say so before reading a possibly large file only to refuse.
  if (!entry) {
    const gate = checkReadBeforeWrite({ rel, entry, current: null });
    if (!gate.ok) return refuse(gate.code, gate.message, gate.details);
  }
  const read = await readStable(openFile);
  if (!read.ok) {
    return refuse('CONFLICT', `File '${rel}' changed while it was being read. ReadFile it again, then retry.`, {
      reason: 'changed_during_read',
    });
  }
  const { bytes, snapshot } = read;
  if (looksBinary(bytes)) return refuse('BINARY_FILE', binaryMessage);
  const sha256 = sha256Hex(bytes);
  const gate = checkReadBeforeWrite({
    rel,
    entry,
    current: { mtime_ms: snapshot.mtimeMs, size_bytes: snapshot.size, sha256 },
  });
  if (!gate.ok) return refuse(gate.code, gate.message, gate.details);
  return { ok: true, read: { bytes, snapshot, sha256, ...(gate.lockNote ? { lockNote: gate.lockNote } : {}) } };
}

/**
 * Journals the write, puts `content` in place atomically and returns the success result with its read-state entry.
 * `expected` is the version the write was decided against (from {@link readForWrite}); without it the file is created
 * and must not exist. A commit that loses a race drops its journal record and returns CONFLICT; nothing is written.
 */
export async function commitWrite(options: {
  executor: ExecutorContext;
  tool: WriteTool;
  rel: string;
  content: Buffer;
  /** sha256 of `content`, already reported in `result`. */
  sha256: string;
  expected?: { snapshot: FileSnapshot; sha256: string };
  result: WriteJournalRecord['result'];
}): Promise<ToolActivityResult> {
  const { executor, tool, rel, content, sha256, expected, result } = options;
  const record: WriteJournalRecord = {
    version: 1,
    tool,
    rel,
    intended_sha256: sha256,
    expected_sha256: expected ? expected.sha256 : null,
    result,
  };
  const journal = journalDirectory(executor.dataDir);
  const beforeCommit = async (): Promise<void> => {
    await writeJournal(journal, executor.activityKey, record);
    await executor.beforeCommit?.(rel);
  };
  const owner = executor.activityKey;
  const { dir, name } = splitParent(rel);
  // A new file's missing parents are made here, one confined component at a time (never `mkdir -p` by path).
  const commit = await withConfinedDirectory(executor.root, dir, { create: !expected }, (directory) =>
    expected
      ? replaceFileAtomically({ directory, name, content, expected: expected.snapshot, beforeCommit, owner })
      : createFileExclusively({ directory, name, content, beforeCommit, owner }),
  );
  if (!commit.ok) {
    await removeJournal(journal, executor.activityKey);
    const message = expected
      ? `File '${rel}' was modified by another process while it was being written; nothing was written. ReadFile it again, then retry.`
      : `File '${rel}' was created by another process while it was being written; nothing was written. ReadFile it, then retry.`;
    return pathFailure(executor, rel, 'CONFLICT', message, { reason: commit.reason });
  }
  await sweepJournals(journal);
  const source = tool === 'EditFile' ? 'edit' : 'write';
  return committedResult({ executor, rel, result, snapshot: commit.snapshot, sha256, source });
}
