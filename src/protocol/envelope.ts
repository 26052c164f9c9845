// Workflow-safe: no Node builtins, no I/O. Imported by workflow code and by activities alike.
// The ToolResult envelope of docs/tools.md §1: typed inside the program, serialised only at the model boundary.

/** Outcome of one tool call. */
export type ToolStatus = 'success' | 'partial' | 'error';

/** Error codes of docs/tools.md §1. */
export type ErrorCode =
  | 'NOT_FOUND'
  | 'ACCESS_DENIED'
  | 'PERMISSION_DENIED'
  | 'INVALID_PARAM'
  | 'TIMEOUT'
  | 'INTERNAL_ERROR'
  | 'EXECUTION_ERROR'
  | 'IS_DIRECTORY'
  | 'BINARY_FILE'
  | 'CONFLICT'
  | 'CIRCUIT_OPEN'
  | 'CANCELLED'
  | 'MCP_PARAM_ERROR'
  | 'MCP_PARSE_ERROR'
  | 'MCP_EXECUTION_ERROR'
  | 'MCP_NETWORK_ERROR'
  | 'MCP_TIMEOUT'
  | 'MCP_NOT_FOUND';

/** One argument repair, recorded in `context.repairs` (§1 repair records). */
export interface Repair {
  stage: 'name' | 'parse' | 'coerce' | 'alias' | 'drop' | 'input';
  kind: string;
  param?: string;
  from?: string;
  to?: string;
}

/** Where and with what a call ran. */
export interface EnvelopeContext {
  tool_call_id: string;
  cwd: string;
  params_input: Record<string, unknown>;
  path_resolved?: string;
  repairs?: Repair[];
  ignored_params?: string[];
}

/** The error part of an envelope; present iff status is "error". */
export interface EnvelopeError {
  code: ErrorCode;
  message: string;
  details?: Record<string, unknown>;
}

/** The ToolResult envelope sent to the model as the tool message content. */
export interface Envelope {
  status: ToolStatus;
  data: Record<string, unknown>;
  text: string;
  stats: { time_ms: number } & Record<string, unknown>;
  context: EnvelopeContext;
  error?: EnvelopeError;
}

/** Codes whose errors count toward a tool's circuit breaker (§1, §10). */
export const BREAKER_COUNTED_CODES: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  'TIMEOUT',
  'EXECUTION_ERROR',
  'INTERNAL_ERROR',
  'MCP_EXECUTION_ERROR',
  'MCP_NETWORK_ERROR',
  'MCP_TIMEOUT',
]);

const MAX_ECHOED_STRING = 1000;

/** Abbreviates every string longer than 1,000 characters, recursively (§1 `params_input`). */
export function abbreviateParams(value: Record<string, unknown>): Record<string, unknown> {
  const visit = (item: unknown): unknown => {
    if (typeof item === 'string') {
      return item.length > MAX_ECHOED_STRING
        ? `${item.slice(0, MAX_ECHOED_STRING)}…(+${item.length - MAX_ECHOED_STRING} chars)`
        : item;
    }
    if (Array.isArray(item)) return item.map(visit);
    if (item !== null && typeof item === 'object') {
      return Object.fromEntries(Object.entries(item).map(([key, inner]) => [key, visit(inner)]));
    }
    return item;
  };
  return visit(value) as Record<string, unknown>;
}

/** Builds a success or partial envelope. */
export function okEnvelope(options: {
  status?: 'success' | 'partial';
  data?: Record<string, unknown>;
  text: string;
  stats?: Record<string, unknown> & { time_ms?: number };
  context: EnvelopeContext;
}): Envelope {
  return {
    status: options.status ?? 'success',
    data: options.data ?? {},
    text: options.text,
    stats: { ...options.stats, time_ms: Math.max(1, options.stats?.time_ms ?? 1) },
    context: options.context,
  };
}

/** Builds an error envelope; `error.message` always equals `text` (§1). */
export function errorEnvelope(options: {
  code: ErrorCode;
  message: string;
  details?: Record<string, unknown>;
  data?: Record<string, unknown>;
  stats?: Record<string, unknown> & { time_ms?: number };
  context: EnvelopeContext;
}): Envelope {
  return {
    status: 'error',
    data: options.data ?? {},
    text: options.message,
    stats: { ...options.stats, time_ms: Math.max(0, options.stats?.time_ms ?? 0) },
    context: options.context,
    error: { code: options.code, message: options.message, ...(options.details ? { details: options.details } : {}) },
  };
}

/** Serialises an envelope in the §1 key order for the tool message content. */
export function serializeEnvelope(envelope: Envelope): string {
  const ordered: Record<string, unknown> = {
    status: envelope.status,
    data: envelope.data,
    text: envelope.text,
    stats: envelope.stats,
    context: envelope.context,
  };
  if (envelope.error) ordered.error = envelope.error;
  return JSON.stringify(ordered, null, 2);
}

/** UTF-8 byte length without Node's Buffer, so it runs in the workflow isolate. */
export function utf8ByteLength(text: string): number {
  let bytes = 0;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code < 0x80) bytes += 1;
    else if (code < 0x800) bytes += 2;
    else if (code >= 0xd800 && code <= 0xdbff && index + 1 < text.length) {
      bytes += 4;
      index++;
    } else bytes += 3;
  }
  return bytes;
}

/** `size(envelope)` of §0. */
export function envelopeSize(envelope: Envelope): number {
  return utf8ByteLength(serializeEnvelope(envelope));
}
