// Workflow-safe: one transcript message, the project's own and provider-neutral: four roles, text content, tool calls and
// their results by call id, and what a provider needs back verbatim on later steps as opaque provider items. Its field
// names follow Chat Completions, the shape most endpoints speak.

/** A tool call as recorded in an assistant message (ids already normalised, docs/tools.md §3 step 1). */
export interface ToolCallMessagePart {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

/**
 * Something a provider returned that it needs back, unchanged, when the transcript is sent to it again: an OpenAI
 * Responses reasoning item with its encrypted content, an Anthropic thinking block with its signature. Other
 * providers leave it out of their requests.
 */
export interface ProviderItem {
  /** The provider that made it (`openai-responses`, `anthropic`). */
  provider: string;
  /** The item exactly as the provider's API returned it. */
  item: Record<string, unknown>;
}

/** One transcript message. Contents are always strings, as every endpoint accepts. */
export type ChatMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: string }
  | {
      role: 'assistant';
      content: string | null;
      tool_calls?: ToolCallMessagePart[];
      /** Kept verbatim for the provider that made them (reasoning), in the order it returned them. */
      provider_items?: ProviderItem[];
    }
  | { role: 'tool'; tool_call_id: string; content: string };
