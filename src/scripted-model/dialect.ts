// Node: one API the scripted model server speaks. The server serves the script's turns in order whichever API asks;
// a dialect says where its requests arrive, which requests its real API would reject, and how a turn is written back
// as that API's answer, whole or as its event stream.
import type { ScriptTurn } from './script.js';

/** One event of a stream: the SSE `event:` name (none for Chat Completions) and its JSON data. */
export interface StreamEvent {
  event?: string;
  data: unknown;
}

/** What the server knows when it renders a turn. */
export interface DialectRenderOptions {
  /** 1-based position of the turn in the script; makes ids deterministic. */
  turnNumber: number;
  /** The model the answer names: the turn's own, else the one the request asked for. */
  model: string;
  created: number;
  /** Characters of the request's prompt, for the default usage estimate. */
  promptChars: number;
}

/** A request read by a dialect: accepted (with what the server needs from it), or refused as its real API would. */
export type DialectRequest =
  | {
      ok: true;
      stream: boolean;
      /** The model the request names. */
      model?: string;
      /** What the default usage estimate counts as the prompt (the messages). */
      prompt: unknown;
      /** The text of the latest tool result, for a turn's `expect.last_tool_contains`. */
      lastToolResult?: string;
      /** A transcript-compaction request (answered with the server's compaction summary when it has one). */
      compaction: boolean;
      /** Whether the request carries tools; a dialect that says false gets tool calls written as text (answerFor). */
      offersTools?: boolean;
      /** The request's system prompt asks for the text protocol's `Final Answer:`. */
      asksForFinalAnswer?: boolean;
    }
  | { ok: false; status: number; message: string };

/** One API of the scripted server. */
export interface ScriptedDialect {
  /** The route, e.g. `/v1/chat/completions`. */
  path: string;
  /** Reads a JSON body; refuses what the real API refuses, with its status and a message naming the problem. */
  read(body: Record<string, unknown>): DialectRequest;
  /** The whole answer of a non-streaming request. */
  render(turn: ScriptTurn, options: DialectRenderOptions): unknown;
  /**
   * The stream's events. With `truncate_stream` the list stops halfway through the turn (no end, no usage); the
   * server adds the dialect's `done` line only to a stream that was not truncated.
   */
  renderEvents(turn: ScriptTurn, options: DialectRenderOptions & { includeUsage: boolean }): StreamEvent[];
  /** Whether a streaming request asks for usage in the stream (Chat Completions' `stream_options`); default yes. */
  includeUsage?(body: Record<string, unknown>): boolean;
  /** A line sent after the last event of a complete stream (`data: [DONE]`), if the API has one. */
  done?: string;
  /** The API's error body. */
  errorBody(status: number, code: string, message: string): unknown;
  /** The event a stream fails with (a turn's `stream_error`), sent after `sent` events. */
  streamError(error: { code?: string | undefined; message: string }, sent: number): StreamEvent;
}

/**
 * What a provider folder's `scripted-dialect.ts` exports (the provider table names it): a dialect for each server,
 * since a dialect may remember what it answered.
 */
export interface ScriptedDialectModule {
  createScriptedDialect(): ScriptedDialect;
}
