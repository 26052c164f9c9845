// Node: the start that Glob and Grep share: limits with their docs/tools.md §11 defaults, the call's deadline, the
// typed input and the `path` parameter resolved inside W, with an error helper whose envelopes name that path.
import { performance } from 'node:perf_hooks';
import { errorEnvelope } from '../../protocol/envelope.js';
import type { EnvelopeContext, ErrorCode } from '../../protocol/envelope.js';
import type { ToolContract } from '../../tools/define-tool.js';
import type { ExecutorContext } from '../executors/types.js';
import { contextWithPath, parseInput, resolvePathParam } from '../files/common.js';
import type { ToolActivityResult } from '../../protocol/tool-activity.js';
import { MAX_SCAN_ENTRIES, SEARCH_TIMEOUT_MS } from './walk.js';

/** Limits of a search traversal; the §11 values by default, smaller in tests. */
export interface SearchLimits {
  maxEntries?: number;
  timeoutMs?: number;
}

/** `limits` with the §11 values filled in. */
export function searchLimits(limits: SearchLimits): Required<SearchLimits> {
  return { maxEntries: limits.maxEntries ?? MAX_SCAN_ENTRIES, timeoutMs: limits.timeoutMs ?? SEARCH_TIMEOUT_MS };
}

/** A search call with its input parsed and its `path` resolved. */
export interface SearchStart<I> {
  input: I;
  rel: string;
  real: string;
  /** False when `path` names nothing yet; each tool words that error itself. */
  exists: boolean;
  context: EnvelopeContext;
  /** `performance.now()` value past which the traversal stops; the activity's elapsed time counts against it. */
  deadline: number;
  fail: (code: ErrorCode, message: string, details?: Record<string, unknown>) => ToolActivityResult;
}

/** Parses the input by `contract` and resolves its `path`, or returns the INVALID_PARAM / ACCESS_DENIED result. */
export async function startSearch<I extends Record<string, unknown> & { path: string }>(
  contract: ToolContract<I>,
  executor: ExecutorContext,
  timeoutMs: number,
): Promise<{ ok: true; search: SearchStart<I> } | { ok: false; result: ToolActivityResult }> {
  const deadline = performance.now() + timeoutMs - executor.elapsedMs();
  const parsed = parseInput(contract, executor);
  if (!parsed.ok) return parsed;
  const resolved = await resolvePathParam(executor, parsed.input.path);
  if (!resolved.ok) return resolved;
  const { rel, real, exists } = resolved.path;
  const context = contextWithPath(executor, rel);
  const fail = (code: ErrorCode, message: string, details?: Record<string, unknown>): ToolActivityResult => ({
    envelope: errorEnvelope({ code, message, details, context, stats: { time_ms: executor.elapsedMs() } }),
  });
  return { ok: true, search: { input: parsed.input, rel, real, exists, context, deadline, fail } };
}
