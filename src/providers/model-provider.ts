import type { ChatMessage, ModelTurn, ToolSchema } from '../core/messages.js';

/** How far a streamed answer has got; small enough for heartbeat details. */
export interface StreamProgress {
  chunks: number;
  contentChars: number;
  toolCalls: number;
}

/** What a provider receives: the transcript and the resolved tool schemas. */
export interface ProviderRequest {
  messages: ChatMessage[];
  tools: ToolSchema[];
  model: string;
  signal?: AbortSignal;
  /** Called as stream chunks arrive, so the activity can heartbeat while the answer is still coming. */
  onProgress?: (progress: StreamProgress) => void;
}

/** One model adapter; providers throw their SDK's errors and `classifyModelError` maps them for Temporal. */
export interface ModelProvider {
  readonly name: string;
  complete(request: ProviderRequest): Promise<ModelTurn>;
}
