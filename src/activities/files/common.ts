// Node: small pieces the three file executors share: typed input, path resolution as an envelope, read-state entries.
import { errorEnvelope, okEnvelope } from '../../protocol/envelope.js';
import type { EnvelopeContext, ErrorCode } from '../../protocol/envelope.js';
import { fileWriteRule } from '../../core/permissions/file-rules.js';
import type { ReadState } from '../../protocol/read-state.js';
import { relativeToWorkspace } from '../../core/step/call-paths.js';
import type { ToolContract } from '../../tools/define-tool.js';
import type { ExecutorContext } from '../executors/types.js';
import type { ToolActivityResult } from '../../protocol/tool-activity.js';
import { resolveInWorkspace } from '../workspace.js';
import type { WorkspacePath } from '../workspace.js';
import type { FileSnapshot } from './snapshot.js';

/**
 * The call's input parsed by the tool's own schema. The orchestrator already validated it; parsing again applies
 * defaults and gives the executor a typed value even when it is called directly.
 */
export function parseInput<I extends Record<string, unknown>>(
  contract: ToolContract<I>,
  executor: ExecutorContext,
): { ok: true; input: I } | { ok: false; result: ToolActivityResult } {
  const parsed = contract.inputSchema.safeParse(executor.request.input);
  if (parsed.success) return { ok: true, input: parsed.data };
  const issues = parsed.error.issues.map((issue) => `${issue.path.join('.') || '(input)'}: ${issue.message}`);
  const message = `Invalid arguments for ${contract.name}: ${issues.join('; ')}.`;
  return {
    ok: false,
    result: {
      envelope: errorEnvelope({
        code: 'INVALID_PARAM',
        message,
        details: { reason: 'schema_violation', issues },
        context: executor.context,
        stats: { time_ms: executor.elapsedMs() },
      }),
    },
  };
}

/** Resolves the `path` parameter inside W, or returns the ACCESS_DENIED / INVALID_PARAM result. */
export async function resolvePathParam(
  executor: ExecutorContext,
  inputPath: string,
): Promise<{ ok: true; path: WorkspacePath } | { ok: false; result: ToolActivityResult }> {
  const resolved = await resolveInWorkspace(executor.root, inputPath);
  if (resolved.ok) return { ok: true, path: resolved };
  return {
    ok: false,
    result: {
      envelope: errorEnvelope({
        code: resolved.code,
        message: resolved.message,
        details: { reason: resolved.code === 'ACCESS_DENIED' ? 'outside_workspace' : 'invalid_path', path: inputPath },
        context: executor.context,
        stats: { time_ms: executor.elapsedMs() },
      }),
    },
  };
}

/**
 * The permission decision judged the path as typed (docs/tools.md §5.1 step 4). A write that lands, through a link, on
 * a protected path the typed one is not (`g/config` with `g -> .git`, or a link a build step made) was never approved
 * for it: refuse, naming the real path, so the model can write it by that name and the operator be asked about it. The
 * protected list is the run's (`request.writeProtected`), else the default. Reads never come here.
 */
export function protectedRealPathRefusal(
  executor: ExecutorContext,
  inputPath: string,
  resolved: WorkspacePath,
): ToolActivityResult | undefined {
  const writeProtected = executor.request.writeProtected;
  const policy = writeProtected ? { writeProtected } : {};
  if (fileWriteRule(resolved.rel, policy).rule !== 'protected_path') return undefined;
  const typed = relativeToWorkspace(executor.request.workspace, inputPath);
  if (typed === resolved.rel) return undefined;
  return pathFailure(
    executor,
    resolved.rel,
    'PERMISSION_DENIED',
    `'${inputPath}' resolves through a symbolic link to '${resolved.rel}', a protected path; nothing was written. ` +
      `To change that file, call the tool again with path '${resolved.rel}' (the operator is asked about it).`,
    { reason: 'protected_real_path', path: inputPath, real_path: resolved.rel },
  );
}

/** The envelope context with `path_resolved` set. */
export function contextWithPath(executor: ExecutorContext, rel: string): EnvelopeContext {
  return { ...executor.context, path_resolved: rel };
}

/** An error result about the file at `rel`, with `path_resolved` in its context. */
export function pathFailure(
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

/** A read-state entry for the file as it now is. `read_at` is wall-clock time: activities may read the clock. */
export function readStateEntry(options: {
  rel: string;
  snapshot: FileSnapshot;
  sha256: string;
  source: ReadState['source'];
  partial: boolean;
}): ReadState {
  return {
    rel: options.rel,
    mtime_ms: options.snapshot.mtimeMs,
    size_bytes: options.snapshot.size,
    sha256: options.sha256,
    read_at: Date.now(),
    source: options.source,
    partial: options.partial,
  };
}

/** The success result of a committed write: the envelope and the store entry for the new content. */
export function committedResult(options: {
  executor: ExecutorContext;
  rel: string;
  result: { text: string; data: Record<string, unknown>; stats: Record<string, unknown> };
  snapshot: FileSnapshot;
  sha256: string;
  source: 'write' | 'edit';
}): ToolActivityResult {
  const { executor, rel, result, snapshot, sha256, source } = options;
  return {
    envelope: okEnvelope({
      data: result.data,
      text: result.text,
      stats: { ...result.stats, new_mtime_ms: snapshot.mtimeMs, time_ms: executor.elapsedMs() },
      context: contextWithPath(executor, rel),
    }),
    readStateUpdate: { key: rel, entry: readStateEntry({ rel, snapshot, sha256, source, partial: false }) },
  };
}
