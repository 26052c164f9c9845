// Node: what every adapter implements. The request is the workflow's ModelRequest with what the activity resolved
// (the messages from the store, the tools' contracts, the model); each adapter renders it, tools included, in its
// API's terms, and turns the answer back into a ModelTurn.
import { finalResultToolSchema } from '../core/final-result.js';
import type { ChatMessage, ModelRequest, ModelTurn, ToolSchema } from '../protocol/model.js';
import type { ToolContract } from '../tools/define-tool.js';
import type { LiveDelta } from '../live/live-event.js';
import { toToolSchema } from '../tools/schema-export.js';

/** How far a streamed answer has got; small enough for heartbeat details. */
export interface StreamProgress {
  /** Stream events received so far. */
  chunks: number;
  contentChars: number;
  toolCalls: number;
}

/**
 * A ModelRequest as a provider receives it: its tool choice and output schema (a structured run's final tool, which
 * each adapter offers beside the contracts) as the workflow sent them, the transcript read back, the named tools
 * resolved to their contracts once, and the model chosen.
 */
export type ProviderRequest = Pick<ModelRequest, 'toolChoice' | 'outputSchema'> & {
  messages: ChatMessage[];
  tools: readonly ToolContract[];
  model: string;
  signal?: AbortSignal;
  /** Sent with the HTTP request besides the SDK's own (the W3C trace context of the call's span). */
  headers?: Record<string, string>;
  /** Called as stream chunks arrive, so the activity can heartbeat while the answer is still coming. */
  onProgress?: (progress: StreamProgress) => void;
  /**
   * Called with each piece of the answer as it arrives (text, reasoning summaries, a tool call's name, then its
   * arguments), for live output; the turn returned is still the record.
   */
  onDelta?: (delta: LiveDelta) => void;
};

/**
 * One model adapter. It throws its SDK's errors as they are (and an SDK-style abort error when the request's signal
 * fired): the model-call activity classifies every one of them once, in activities/failures.ts, as a retryable or
 * non-retryable ApplicationFailure (a response the Responses API reports failed is thrown as the SDK's APIError too,
 * with a 400 when retrying cannot help). Only an answer past the output cap (output-cap.ts) is thrown by the adapter
 * as a non-retryable ApplicationFailure of its own.
 */
export interface ModelProvider {
  readonly name: string;
  complete(request: ProviderRequest): Promise<ModelTurn>;
}

/**
 * A request's tools as function descriptions (protocol ToolSchema): each contract's and, for a structured run, the
 * final tool built from its output schema, last. Chat Completions sends them as they are, the Responses API flattens
 * them, the text protocol describes them in the prompt, and the model-call activity counts their tokens in this one
 * shape whichever API the run names.
 */
export function functionTools(request: Pick<ProviderRequest, 'tools' | 'outputSchema'>): ToolSchema[] {
  const tools = request.tools.map(toToolSchema);
  return request.outputSchema ? [...tools, finalResultToolSchema(request.outputSchema)] : tools;
}

/** Whether a request offers the model any tool at all. */
export function offersTools(request: Pick<ProviderRequest, 'tools' | 'outputSchema'>): boolean {
  return request.tools.length > 0 || request.outputSchema !== undefined;
}
