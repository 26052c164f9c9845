// Node: the executor side of function tools (docs/tools.md §12): a worker-registered function of one raw string.
import type { Envelope } from '../../protocol/envelope.js';
import { errorEnvelope, okEnvelope } from '../../protocol/envelope.js';
import type { FunctionToolSpec } from '../../protocol/function-tool-spec.js';
import type { ToolExecutor } from './types.js';

/** What a function receives besides its input. */
export interface FunctionToolContext {
  /** Real path of the run's workspace. */
  workspace: string;
  /** Aborted when the run or the activity is cancelled. */
  signal: AbortSignal;
}

/** A function tool registered on the worker: its contract data plus the function itself. */
export interface FunctionToolDefinition extends FunctionToolSpec {
  fn: (input: string, context: FunctionToolContext) => string | Envelope | Promise<string | Envelope>;
}

const STATUSES = new Set(['success', 'partial', 'error']);

function isEnvelope(value: unknown): value is Envelope {
  if (value === null || typeof value !== 'object') return false;
  const candidate = value as Partial<Envelope>;
  return (
    typeof candidate.status === 'string' &&
    STATUSES.has(candidate.status) &&
    typeof candidate.text === 'string' &&
    candidate.data !== null &&
    typeof candidate.data === 'object' &&
    (candidate.status !== 'error' || typeof candidate.error?.code === 'string')
  );
}

/** Wraps a function as a tool executor: a string becomes a success envelope, an envelope passes through (validated). */
export function functionExecutor(definition: FunctionToolDefinition): ToolExecutor {
  return async (context) => {
    const input = context.request.input as { input: string };
    const result = await definition.fn(input.input, { workspace: context.root, signal: context.signal });
    const stats = { time_ms: context.elapsedMs() };
    if (typeof result === 'string') return { envelope: okEnvelope({ text: result, stats, context: context.context }) };
    if (!isEnvelope(result)) {
      return {
        envelope: errorEnvelope({
          code: 'INTERNAL_ERROR',
          message: `Tool '${definition.name}' failed: it returned an unsupported result (expected a string or an envelope).`,
          stats,
          context: context.context,
        }),
      };
    }
    if (result.status === 'error') {
      return {
        envelope: errorEnvelope({
          code: result.error!.code,
          message: result.text,
          ...(result.error?.details ? { details: result.error.details } : {}),
          data: result.data,
          stats,
          context: context.context,
        }),
      };
    }
    return {
      envelope: okEnvelope({
        status: result.status,
        data: result.data,
        text: result.text,
        stats,
        context: context.context,
      }),
    };
  };
}
