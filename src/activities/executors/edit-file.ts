// EditFile executor (TOOL-SPEC C.11): exact-match replacements behind the read-before-write lock, committed atomically (C.8).
import { errorEnvelope, okEnvelope } from '../../core/envelope.js';
import type { ErrorCode } from '../../core/envelope.js';
import { editFile } from '../../tools/edit-file.js';
import { applyEdits } from '../files/apply-edits.js';
import type { EditSpec } from '../files/apply-edits.js';
import { replaceFileAtomically } from '../files/atomic-write.js';
import { looksBinary, readHead } from '../files/binary.js';
import { committedResult, contextWithPath, parseInput, resolvePathParam } from '../files/common.js';
import { diffPreview } from '../files/diff-preview.js';
import { fileSystemErrorEnvelope, isMissingError } from '../files/errors.js';
import { sha256Hex } from '../files/hash.js';
import { removeJournal, sweepJournals, writeJournal } from '../files/journal.js';
import type { WriteJournalRecord } from '../files/journal.js';
import { checkReadBeforeWrite } from '../files/lock-gate.js';
import { withPathLock } from '../files/path-lock.js';
import { findIdempotentReplay } from '../files/replay.js';
import { readStable, statSnapshot } from '../files/snapshot.js';
import { similarNames } from '../files/suggestions.js';
import { decodeUtf8Strict, encodeUtf8 } from '../files/text.js';
import type { ToolActivityResult } from '../tool-request.js';
import type { ExecutorContext, ToolExecutor } from './types.js';

interface EditTarget {
  rel: string;
  real: string;
  edits: EditSpec[];
  multi: boolean;
  dryRun: boolean;
}

/** Replaces exact text in an existing file, all edits or none (C.11 EditFile). */
export const executeEditFile: ToolExecutor = async (executor) => {
  const parsed = parseInput(editFile, executor);
  if (!parsed.ok) return parsed.result;
  const input = parsed.input;
  const form = editList(input);
  if (!form.ok) {
    return {
      envelope: errorEnvelope({
        code: 'INVALID_PARAM',
        message: form.message,
        details: { reason: 'edit_form' },
        context: executor.context,
        stats: { time_ms: executor.elapsedMs() },
      }),
    };
  }
  const resolved = await resolvePathParam(executor, input.path);
  if (!resolved.ok) return resolved.result;
  const target: EditTarget = {
    rel: resolved.path.rel,
    real: resolved.path.real,
    edits: form.edits,
    multi: input.edits !== undefined,
    dryRun: input.dry_run,
  };
  const context = contextWithPath(executor, target.rel);
  return withPathLock(target.real, async () => {
    try {
      if (!target.dryRun) {
        const replay = await findIdempotentReplay({ executor, tool: 'EditFile', rel: target.rel, real: target.real });
        if (replay) return replay;
      }
      return await edit(executor, target);
    } catch (error) {
      if (isMissingError(error)) return notFound(executor, target);
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

/** Exactly one form: old_string with new_string, or edits. */
function editList(input: {
  old_string?: string;
  new_string?: string;
  replace_all: boolean;
  edits?: EditSpec[];
}): { ok: true; edits: EditSpec[] } | { ok: false; message: string } {
  const single = input.old_string !== undefined || input.new_string !== undefined;
  if (input.edits !== undefined && single) {
    return { ok: false, message: 'Use either old_string/new_string or edits, not both.' };
  }
  if (input.edits !== undefined) return { ok: true, edits: input.edits };
  if (input.old_string === undefined || input.new_string === undefined) {
    return {
      ok: false,
      message: single
        ? 'old_string and new_string must be given together (or use edits).'
        : 'Provide old_string and new_string, or edits (a list of {old_string, new_string}).',
    };
  }
  return { ok: true, edits: [{ old_string: input.old_string, new_string: input.new_string, replace_all: input.replace_all }] };
}

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

async function notFound(executor: ExecutorContext, target: EditTarget): Promise<ToolActivityResult> {
  const suggestions = await similarNames(target.real, target.rel);
  return failure(executor, target.rel, 'NOT_FOUND', `File '${target.rel}' does not exist; use WriteFile to create it.`, {
    suggestions,
  });
}

async function edit(executor: ExecutorContext, target: EditTarget): Promise<ToolActivityResult> {
  const { rel, real } = target;
  const info = await statSnapshot(real);
  if (info.isDirectory) return failure(executor, rel, 'IS_DIRECTORY', `'${rel}' is a directory; EditFile needs a file path.`);
  if (!info.isFile) {
    return failure(executor, rel, 'INVALID_PARAM', `'${rel}' is not a regular file.`, { reason: 'not_regular_file' });
  }
  if (looksBinary(await readHead(real))) {
    return failure(executor, rel, 'BINARY_FILE', `'${rel}' is a binary file; EditFile only edits text.`);
  }
  const entry = executor.request.readState?.[rel];
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
  if (looksBinary(bytes)) return failure(executor, rel, 'BINARY_FILE', `'${rel}' is a binary file; EditFile only edits text.`);
  const expectedSha = sha256Hex(bytes);
  const gate = checkReadBeforeWrite({
    rel,
    entry,
    current: { mtime_ms: snapshot.mtimeMs, size_bytes: snapshot.size, sha256: expectedSha },
  });
  if (!gate.ok) return failure(executor, rel, gate.code, gate.message, gate.details);

  const decoded = decodeUtf8Strict(bytes);
  if (!decoded) {
    return failure(executor, rel, 'INVALID_PARAM', `'${rel}' is not valid UTF-8; EditFile only edits UTF-8 text. Use WriteFile to replace it.`, {
      reason: 'not_utf8',
    });
  }
  const plan = applyEdits({ original: decoded.text, edits: target.edits, rel, multi: target.multi });
  if (!plan.ok) return failure(executor, rel, 'INVALID_PARAM', plan.message, plan.details);
  const newBytes = encodeUtf8(plan.text, decoded.bom);
  if (newBytes.equals(bytes)) {
    return failure(executor, rel, 'INVALID_PARAM', `The edits leave '${rel}' unchanged.`, { reason: 'no_change' });
  }

  const intendedSha = sha256Hex(newBytes);
  const diff = diffPreview({ rel, before: plan.normalizedBefore, after: plan.normalizedAfter });
  const editCount = target.edits.length;
  const summary = `${editCount} edit(s), ${plan.replacements} replacement(s) (+${diff.lines_added}/-${diff.lines_removed} lines)`;
  const data = {
    path: rel,
    applied: !target.dryRun,
    dry_run: target.dryRun,
    edits_applied: target.dryRun ? 0 : editCount,
    replacements: plan.replacements,
    diff_preview: diff.diff_preview,
    diff_truncated: diff.diff_truncated,
    lines_added: diff.lines_added,
    lines_removed: diff.lines_removed,
    ...(gate.lockNote ? { lock_note: gate.lockNote } : {}),
  };

  if (target.dryRun) {
    return {
      envelope: okEnvelope({
        status: 'partial',
        data,
        text: `Dry run: ${summary} would change '${rel}'; nothing was written.`,
        stats: {
          time_ms: executor.elapsedMs(),
          bytes_written: 0,
          original_size: bytes.length,
          new_size: newBytes.length,
          new_mtime_ms: snapshot.mtimeMs,
          new_sha256: intendedSha,
        },
        context: contextWithPath(executor, rel),
      }),
    };
  }

  const result = {
    text: `Edited '${rel}': ${summary}.`,
    data,
    stats: { bytes_written: newBytes.length, original_size: bytes.length, new_size: newBytes.length, new_sha256: intendedSha },
  };
  const record: WriteJournalRecord = {
    version: 1,
    tool: 'EditFile',
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
  return committedResult({ executor, rel, result, snapshot: commit.snapshot, sha256: intendedSha, source: 'edit' });
}
