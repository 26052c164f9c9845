// Node: reads an OpenAI event stream (server-sent events: Chat Completions chunks, Responses events) in linear time,
// a network read at a time.
// The openai SDK's own reader copies everything it has buffered for every event it takes out, and runs each event
// through three async generators: for a megabyte of tool arguments streamed a token at a time (some 300,000 events,
// arriving in large reads from a fast local server) that is seconds of work before the assembler sees anything.
// The SDK still makes the request (auth, base URL, HTTP errors); only the body is read here, with its semantics:
// `[DONE]` ends the stream, an event carrying `error` is thrown as the SDK's APIError. The Anthropic adapter reads its
// stream here too, with its own errors and its `ping`s passed over.
import { APIError } from 'openai';
import type { OutputMeter } from './output-cap.js';
import type { StreamChunk } from './openai-chat/stream-assembler.js';
import { chatDeltaRule } from './openai-chat/stream-assembler.js';
import type { MergeRule } from './delta-runs.js';
import { DeltaRunReader } from './delta-runs.js';

// An event ends at a blank line; servers may use any of the three line endings.
const EVENT_END = /\r\n\r\n|\n\n|\r\r/g;

/** The chunks of a streamed chat completion, in batches: all the events one network read completed. */
export function readChatChunks(response: Response, meter?: OutputMeter): AsyncGenerator<StreamChunk[]> {
  return readEventData<StreamChunk>(response, meter, { merge: chatDeltaRule });
}

/** How readEventData reads a stream beyond its events' data. */
export interface EventStreamOptions<T> {
  /** Runs of events this rule allows are read as one event (delta-runs.ts). */
  merge?: MergeRule<T>;
  /** The error an event stands for, thrown when it arrives: openaiStreamError unless said otherwise. */
  errorOf?: (data: unknown, name: string | undefined, headers: Headers) => Error | undefined;
  /** Events to pass over by their name (an Anthropic `ping`); none by default. */
  skip?: (name: string | undefined) => boolean;
}

/** OpenAI's: an event named `error`, or one whose data carries `error`, as the openai SDK's APIError. */
export function openaiStreamError(data: unknown, name: string | undefined, headers: Headers): Error | undefined {
  const parsed = data as { error?: object; message?: string } | null;
  // A Responses `error` event carries its code and message at the top level, not under `error`.
  if (name === 'error') return new APIError(undefined, parsed?.error ?? parsed ?? undefined, parsed?.message, headers);
  if (parsed && parsed.error) return new APIError(undefined, parsed.error, undefined, headers);
  return undefined;
}

/**
 * The JSON data of each event of a stream, in batches: all the events one network read completed. With a `meter`, an
 * event still being received must fit the turn's cap too: one event that never ends is stopped like a turn that
 * never ends (the assembler meters the content of the events it takes).
 */
export async function* readEventData<T>(
  response: Response,
  meter?: OutputMeter,
  options: EventStreamOptions<T> = {},
): AsyncGenerator<T[]> {
  if (!response.body) throw new Error('The streamed response has no body.');
  // Node's fetch gives a web ReadableStream of bytes; the DOM lib's typings are not loaded here.
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  const errorOf = options.errorOf ?? openaiStreamError;
  const parse = (text: string, name: string | undefined): T => {
    const parsed = JSON.parse(text) as T;
    const error = errorOf(parsed, name, response.headers);
    if (error) throw error;
    return parsed;
  };
  const runs = options.merge ? new DeltaRunReader<T>(options.merge, parse) : undefined;
  let buffered = '';
  // Where the search for the next blank line resumes: text before it was searched already (a long event comes in
  // many reads, and is searched once).
  let searchFrom = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      buffered += done ? decoder.decode() : decoder.decode(value, { stream: true });
      // At the end, whatever is left is the last event even without its blank line.
      const { events, rest } = takeEvents(done ? `${buffered}\n\n` : buffered, searchFrom);
      buffered = rest;
      meter?.checkPending(buffered.length);
      searchFrom = Math.max(0, rest.length - 3);
      const data: EventData[] = [];
      let ended = false;
      for (const event of events) {
        const one = toData(event);
        if (one === undefined || options.skip?.(one.name)) continue;
        if (one.data.startsWith('[DONE]')) {
          ended = true;
          break;
        }
        data.push(one);
      }
      const chunks = runs ? runs.read(data) : data.map((one) => parse(one.data, one.name));
      if (chunks.length > 0) yield chunks;
      if (done || ended) return;
    }
  } finally {
    // A consumer that stops early (or an error) must not leave the connection open.
    await reader.cancel().catch(() => undefined);
  }
}

/** The complete events in `text` (searched from `from`) and what follows the last one. */
function takeEvents(text: string, from: number): { events: string[]; rest: string } {
  const events: string[] = [];
  let start = 0;
  EVENT_END.lastIndex = from;
  for (let match = EVENT_END.exec(text); match; match = EVENT_END.exec(text)) {
    events.push(text.slice(start, match.index));
    start = match.index + match[0].length;
  }
  return { events, rest: text.slice(start) };
}

interface EventData {
  data: string;
  name: string | undefined;
}

/** One event's data and name; undefined for comments and events without data. */
function toData(event: string): EventData | undefined {
  // Nearly every event is one `data:` line: it needs no splitting.
  if (event.startsWith('data: ') && event.indexOf('\n') === -1 && event.indexOf('\r') === -1)
    return { data: event.slice(6), name: undefined };
  let name: string | undefined;
  const data: string[] = [];
  for (const line of event.split(/\r\n|\n|\r/)) {
    if (line.startsWith('data:')) data.push(line.slice(line[5] === ' ' ? 6 : 5));
    else if (line.startsWith('event:')) name = line.slice(6).trim();
  }
  if (data.length === 0) return undefined;
  return { data: data.join('\n'), name };
}
