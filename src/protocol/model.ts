// Workflow-safe: plain JSON data shared by the workflow, core/ and the model providers: what the workflow asks of a model
// call (ModelRequest) and what the call returns (ModelTurn). The transcript it refers to is provider-neutral
// (chat-message.ts, re-exported here); each provider adapter (src/providers/) translates it to its API and its API's
// answer back into a ModelTurn.
import type { ChatMessage, ProviderItem } from './chat-message.js';
import type { PendingWrites, TranscriptRef } from './transcript-ref.js';
import type { ContentKey } from './content-key.js';

export type { ChatMessage, ProviderItem, ToolCallMessagePart } from './chat-message.js';

/**
 * Which tools the model may call this turn: any or none (`auto`), at least one (`required`), none (`none`), or the
 * named one (`{ name }`, e.g. the final-result tool of a structured run). Each adapter says it its API's way.
 */
export type ToolChoice = 'auto' | 'required' | 'none' | { name: string };

/** How tools reach the model: the API's function calling, or described in the prompt and parsed from its text. */
export type ToolProtocol = 'native' | 'react';

/**
 * The format of what a run writes to history (its model requests and turns, and the transcript they refer to):
 * 2 since the transcript is provider-neutral and requests carry a tool choice. A history's format is the `format` of
 * its model requests (none: 1), so `replay` can say why an older history does not replay instead of pointing at an
 * event. Raise it with any change to these shapes.
 */
export const HISTORY_FORMAT = 2;

/** Token usage of one model call. */
export interface Usage {
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
  /** Prompt tokens read from the provider's prompt cache, when it reports them. */
  cachedTokens?: number;
  /** Prompt tokens written to the provider's prompt cache (Anthropic bills them above the input price). */
  cacheWriteTokens?: number;
  /** Completion tokens spent on reasoning (part of completionTokens), when the provider reports them. */
  reasoningTokens?: number;
  /** Approximate tokens of the tool list sent with the call (part of promptTokens; billed as input). */
  schemaTokens?: number;
  /** True when the endpoint reported no usage and the counts are estimates (characters / 4). */
  estimated?: boolean;
}

/** A tool call exactly as the model produced it: any part may be missing or malformed. */
export interface RawToolCall {
  id?: string;
  name?: string;
  arguments?: string;
  /**
   * False when the stream ended before this call was complete (docs/tools.md §15); it is never executed
   * half-parsed.
   */
  complete: boolean;
}

/** Why the model stopped. */
export type FinishReason = 'stop' | 'tool_calls' | 'length' | 'content_filter' | 'other';

/** What one model call returns to the workflow. */
export interface ModelTurn {
  content: string | null;
  toolCalls: RawToolCall[];
  finishReason: FinishReason;
  usage: Usage;
  model: string;
  /** Which attempt of the activity produced this turn (earlier attempts failed and were retried). */
  attempt?: number;
  /** A compaction call's result: the new, shorter transcript (absent when the summary was unusable). */
  compacted?: Compaction;
  /** A compaction call that found nothing old enough to summarise: no model was called. */
  skipped?: true;
  /** Under `echoTranscript`: the transcript's messages after the request's inline ones. */
  transcriptTail?: ChatMessage[];
  /** What the provider needs back with this turn on later requests (reasoning items), kept in the assistant message. */
  providerItems?: ProviderItem[];
  /** Under an output schema: the turn's FinalResult calls checked against it (absent when the turn made none). */
  finalResult?: FinalResultCheck;
}

/**
 * A structured run's final tool calls, validated by the model activity: the first valid call's value, or what is
 * wrong with them (each schema violation as one line).
 */
export type FinalResultCheck = { valid: true; value: unknown } | { valid: false; errors: string[] };

/** What a compaction did. */
export interface Compaction {
  transcript: TranscriptRef;
  summarisedMessages: number;
  tokensBefore: number;
  tokensAfter: number;
}

/** OpenAI-style function schema sent to the model. */
export interface ToolSchema {
  type: 'function';
  function: { name: string; description: string; parameters: Record<string, unknown>; strict?: boolean };
}

/** Endpoint overrides recorded in the workflow input (never secrets). */
export interface ModelSelection {
  provider?: string;
  model?: string;
  baseUrl?: string;
  /** `react` for models without function calling (default `native`). */
  toolProtocol?: ToolProtocol;
}

/**
 * The input of the `callModel` activity: the transcript by key and tool *names*; the activity rebuilds the messages
 * from the store and resolves the schemas itself (STYLE 10), so history never carries the transcript.
 */
export interface ModelRequest {
  /** HISTORY_FORMAT of the code that made the request. */
  format?: number;
  transcript: TranscriptRef;
  /** Content the workflow made since the last call (its messages, transcript nodes): stored first, then read. */
  writes?: PendingWrites;
  toolNames: string[];
  /** The stored catalog of the task's MCP tools, which the activity resolves their schemas from. */
  mcpCatalog?: ContentKey;
  selection: ModelSelection;
  step: number;
  /** Which tools the model may call (default `auto`). */
  toolChoice?: ToolChoice;
  /** A structured run's JSON Schema: the activity offers the final tool with it and checks the calls to it. */
  outputSchema?: Record<string, unknown>;
  /** Set on the summarising call of a transcript compaction, which is not a step of its own. */
  purpose?: 'compaction';
  /** The run's tool profile, when it has one (for `history`; ignored by the activity). */
  profile?: string;
  /** How the step's tools were selected from more than the run's limit (for `history`; ignored by the activity). */
  toolSelection?: ToolSelectionRecord;
  /**
   * On the first model call of a conversation's follow-up request: which request begins (for `history` and the Web UI;
   * ignored by the activity).
   */
  request?: { n: number; text: string };
  /** The bench's inline-transcript comparison: the messages the workflow holds (ignored by the activity)… */
  messages?: ChatMessage[];
  /** …and a request to return the ones it does not hold yet (ModelTurn.transcriptTail). */
  echoTranscript?: boolean;
}

/** One step's selection as the trace and the model request record it: the shown tools by reason. */
export interface ToolSelectionRecord {
  /** How many tools the step could have shown. */
  candidates: number;
  limit: number;
  pinned: string[];
  discovered: string[];
  recent: string[];
  /** Best first. */
  ranked: string[];
  /** In the order they were taken: the preferred tools, then by name. */
  filled: string[];
}
