import type { ChatMessage, ModelTurn, ToolSchema } from '../core/messages.js';

/** What a provider receives: the transcript and the resolved tool schemas. */
export interface ProviderRequest {
  messages: ChatMessage[];
  tools: ToolSchema[];
  model: string;
  signal?: AbortSignal;
}

/** One model adapter; providers throw their SDK's errors and `classifyModelError` maps them for Temporal. */
export interface ModelProvider {
  readonly name: string;
  complete(request: ProviderRequest): Promise<ModelTurn>;
}
