// Node: EditFile executor (docs/tools.md §11.3): exact-match replacements behind the read-before-write lock, committed
// atomically (§8).
import { errorEnvelope, okEnvelope } from '../../protocol/envelope.js';
import { editFile } from '../../tools/edit-file.js';
import { applyEdits } from '../files/apply-edits.js';
import type { EditSpec } from '../files/apply-edits.js';
import { commitWrite, lockedWrite, readForWrite } from '../files/commit.js';
import {
  contextWithPath,
  parseInput,
  pathFailure,
  protectedRealPathRefusal,
  resolvePathParam,
} from '../files/common.js';
import { diffPreview } from '../files/diff-preview.js';
import { sha256Hex } from '../../store/object-key.js';
import { statSnapshot } from '../files/snapshot.js';
import { similarNames } from '../files/suggestions.js';
import { decodeUtf8Strict, encodeUtf8 } from '../files/text.js';
import type { ToolActivityResult } from '../../protocol/tool-activity.js';
import type { ExecutorContext, ToolExecutor } from './types.js';

interface EditTarget {
  rel: string;
  real: string;
  edits: EditSpec[];
  multi: boolean;
  dryRun: boolean;
}

/** Replaces exact text in an existing file, all edits or none (§11.3 EditFile). */
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
  // A dry run writes nothing, so it may show what an edit through the link would do.
  const refusal = input.dry_run ? undefined : protectedRealPathRefusal(executor, input.path, resolved.path);
  if (refusal) return refusal;
  const target: EditTarget = {
    rel: resolved.path.rel,
    real: resolved.path.real,
    edits: form.edits,
    multi: input.edits !== undefined,
    dryRun: input.dry_run,
  };
  return lockedWrite({
    executor,
    tool: 'EditFile',
    rel: target.rel,
    real: target.real,
    // A dry run writes nothing, so there is no earlier write of it to report.
    replay: !target.dryRun,
    write: () => edit(executor, target),
    onMissing: () => notFound(executor, target),
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
  return {
    ok: true,
    edits: [{ old_string: input.old_string, new_string: input.new_string, replace_all: input.replace_all }],
  };
}

async function notFound(executor: ExecutorContext, target: EditTarget): Promise<ToolActivityResult> {
  const suggestions = await similarNames(target.real, target.rel);
  const message = `File '${target.rel}' does not exist; use WriteFile to create it.`;
  return pathFailure(executor, target.rel, 'NOT_FOUND', message, { suggestions });
}

async function edit(executor: ExecutorContext, target: EditTarget): Promise<ToolActivityResult> {
  const { rel, real } = target;
  const info = await statSnapshot(real);
  const gated = await readForWrite({ executor, tool: 'EditFile', rel, info });
  if (!gated.ok) return gated.result;
  const { bytes, snapshot, lockNote } = gated.read;

  const decoded = decodeUtf8Strict(bytes);
  if (!decoded) {
    return pathFailure(
      executor,
      rel,
      'INVALID_PARAM',
      `'${rel}' is not valid UTF-8; EditFile only edits UTF-8 text. Use WriteFile to replace it.`,
      { reason: 'not_utf8' },
    );
  }
  const plan = applyEdits({ original: decoded.text, edits: target.edits, rel, multi: target.multi });
  if (!plan.ok) return pathFailure(executor, rel, 'INVALID_PARAM', plan.message, plan.details);
  const newBytes = encodeUtf8(plan.text, decoded.bom);
  if (newBytes.equals(bytes)) {
    return pathFailure(executor, rel, 'INVALID_PARAM', `The edits leave '${rel}' unchanged.`, { reason: 'no_change' });
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
    ...(lockNote ? { lock_note: lockNote } : {}),
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
    stats: {
      bytes_written: newBytes.length,
      original_size: bytes.length,
      new_size: newBytes.length,
      new_sha256: intendedSha,
    },
  };
  return commitWrite({
    executor,
    tool: 'EditFile',
    rel,
    content: newBytes,
    sha256: intendedSha,
    expected: gated.read,
    result,
  });
}
