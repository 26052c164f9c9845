import type { ChatMessage, ModelTurn, ToolChoice, ToolSchema } from '../protocol/model.js';
import type { ToolContract } from '../tools/define-tool.js';

/** How far a streamed answer has got; small enough for heartbeat details. */
export interface StreamProgress {
  chunks: number;
  contentChars: number;
  toolCalls: number;
}

/**
 * What a provider receives: the project's transcript and tool schemas (protocol/model), which the adapter translates
 * to its API; it answers with a ModelTurn whatever its API's shape.
 */
export interface ProviderRequest {
  messages: ChatMessage[];
  tools: ToolSchema[];
  /**
   * The same tools as their contracts, for APIs that take the plain input schema rather than the strict rewrite in
   * `tools` (Anthropic: optional fields stay optional, defaults and bounds stay in the schema).
   */
  toolContracts?: readonly ToolContract[];
  model: string;
  /** Which tools the model may call (default `auto`); ignored when no tools are sent. */
  toolChoice?: ToolChoice;
  signal?: AbortSignal;
  /** Called as stream chunks arrive, so the activity can heartbeat while the answer is still coming. */
  onProgress?: (progress: StreamProgress) => void;
}

/**
 * One model adapter. It maps its SDK's errors itself: a failure worth retrying stays a plain error (or an
 * ApplicationFailure with `nextRetryDelay` from `retry-after`), one that is not is a non-retryable ApplicationFailure;
 * `classifyModelError` (activities/failures) does this for the errors the openai SDK throws.
 */
export interface ModelProvider {
  readonly name: string;
  complete(request: ProviderRequest): Promise<ModelTurn>;
}
