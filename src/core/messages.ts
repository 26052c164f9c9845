// Sandbox-safe: plain JSON data shared by the workflow, core/ and the model providers.
// The transcript uses the OpenAI Chat Completions message shapes, the lingua franca of compatible endpoints.
import type { PendingWrites, TranscriptRef } from './transcript-ref.js';

/** A tool call as recorded in an assistant message (ids already normalised, C.3 step 1). */
export interface ToolCallMessagePart {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

/** One transcript message. Contents are always strings, as every OpenAI-compatible endpoint accepts. */
export type ChatMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: string }
  | { role: 'assistant'; content: string | null; tool_calls?: ToolCallMessagePart[] }
  | { role: 'tool'; tool_call_id: string; content: string };

/** Token usage of one model call. */
export interface Usage {
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
  /** Prompt tokens of the cache, when the provider reports them. */
  cachedTokens?: number;
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
  /** False when the stream ended before this call was complete (C.15); it is never executed half-parsed. */
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
}

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
}

/**
 * The input of the `callModel` activity: the transcript by key and tool *names*; the activity rebuilds the messages
 * from the store and resolves the schemas itself (STYLE 10), so history never carries the transcript.
 */
export interface ModelRequest {
  transcript: TranscriptRef;
  /** Content the workflow made since the last call (its messages, transcript nodes): stored first, then read. */
  writes?: PendingWrites;
  toolNames: string[];
  selection: ModelSelection;
  step: number;
  /** Set on the summarising call of a transcript compaction, which is not a step of its own. */
  purpose?: 'compaction';
  /** The bench's inline-transcript comparison: the messages the workflow holds (ignored by the activity)… */
  messages?: ChatMessage[];
  /** …and a request to return the ones it does not hold yet (ModelTurn.transcriptTail). */
  echoTranscript?: boolean;
}
