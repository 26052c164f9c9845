// Node: WriteFile executor (docs/tools.md §11.2): create, or overwrite behind the read-before-write lock, atomically
// (§8).
import { writeFile } from '../../tools/write-file.js';
import { commitWrite, lockedWrite, readForWrite } from '../files/commit.js';
import { parseInput, pathFailure, protectedRealPathRefusal, resolvePathParam } from '../files/common.js';
import { diffPreview } from '../files/diff-preview.js';
import { isMissingError } from '../files/errors.js';
import { sha256Hex } from '../../store/object-key.js';
import { checkReadBeforeWrite } from '../files/lock-gate.js';
import { statSnapshot } from '../files/snapshot.js';
import type { FileSnapshot } from '../files/snapshot.js';
import { decodeUtf8Lenient } from '../files/text.js';
import type { ToolActivityResult } from '../../protocol/tool-activity.js';
import type { ExecutorContext, ToolExecutor } from './types.js';

interface WriteTarget {
  rel: string;
  real: string;
  content: string;
}

/** Creates or overwrites a file, byte-exact (§11.2 WriteFile). */
export const executeWriteFile: ToolExecutor = async (executor) => {
  const parsed = parseInput(writeFile, executor);
  if (!parsed.ok) return parsed.result;
  const resolved = await resolvePathParam(executor, parsed.input.path);
  if (!resolved.ok) return resolved.result;
  const refusal = protectedRealPathRefusal(executor, parsed.input.path, resolved.path);
  if (refusal) return refusal;
  const target: WriteTarget = { rel: resolved.path.rel, real: resolved.path.real, content: parsed.input.content };
  return lockedWrite({
    executor,
    tool: 'WriteFile',
    rel: target.rel,
    real: target.real,
    replay: true,
    write: async () => {
      let existing: FileSnapshot | undefined;
      try {
        existing = await statSnapshot(target.real);
      } catch (error) {
        if (!isMissingError(error)) throw error;
      }
      return existing ? await overwrite(executor, target, existing) : await create(executor, target);
    },
    // The file (or its directory) vanished between our stat and our read or commit.
    onMissing: () =>
      pathFailure(
        executor,
        target.rel,
        'CONFLICT',
        `File '${target.rel}' has been deleted since it was last read. ReadFile it again, then retry.`,
        { reason: 'deleted_since_read' },
      ),
  });
};

async function overwrite(
  executor: ExecutorContext,
  target: WriteTarget,
  info: FileSnapshot,
): Promise<ToolActivityResult> {
  const { rel } = target;
  const gated = await readForWrite({ executor, tool: 'WriteFile', rel, info });
  if (!gated.ok) return gated.result;
  const { bytes, lockNote } = gated.read;

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
      ...(lockNote ? { lock_note: lockNote } : {}),
    },
    stats: { new_size_bytes: newBytes.length, new_sha256: intendedSha },
  };
  return commitWrite({
    executor,
    tool: 'WriteFile',
    rel,
    content: newBytes,
    sha256: intendedSha,
    expected: gated.read,
    result,
  });
}

async function create(executor: ExecutorContext, target: WriteTarget): Promise<ToolActivityResult> {
  const { rel } = target;
  const entry = executor.request.readState?.[rel];
  if (entry) {
    const gate = checkReadBeforeWrite({ rel, entry, current: null });
    if (!gate.ok) return pathFailure(executor, rel, gate.code, gate.message, gate.details);
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
  return commitWrite({ executor, tool: 'WriteFile', rel, content: newBytes, sha256: intendedSha, result });
}
