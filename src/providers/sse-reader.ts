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
import type { EventFraming } from './delta-runs.js';

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
      const text = done ? `${buffered}\n\n` : buffered;
      const { values, at, ended } = takeEvents(text, searchFrom, runs, (one, values) => {
        if (options.skip?.(one.name)) return;
        if (runs) runs.take(one.data, one.name, values, one.framing);
        else values.push(parse(one.data, one.name));
      });
      buffered = text.slice(at);
      meter?.checkPending(buffered.length);
      searchFrom = Math.max(0, buffered.length - 3);
      if (values.length > 0) yield values;
      if (done || ended) return;
    }
  } finally {
    // A consumer that stops early (or an error) must not leave the connection open.
    await reader.cancel().catch(() => undefined);
  }
}

/**
 * The events of `text` that are complete, searched for their ends from `searchFrom`, each handed to `take` (but for
 * the runs `runs` takes straight from the text), up to `[DONE]`; where the first incomplete one starts.
 */
function takeEvents<T>(
  text: string,
  searchFrom: number,
  runs: DeltaRunReader<T> | undefined,
  take: (event: EventData, values: T[]) => void,
): { values: T[]; at: number; ended: boolean } {
  const values: T[] = [];
  let at = 0;
  let ended = false;
  for (;;) {
    if (runs) at = runs.extendInText(text, at);
    EVENT_END.lastIndex = Math.max(at, searchFrom);
    const match = EVENT_END.exec(text);
    if (!match) break;
    const one = toData(text.slice(at, match.index), match[0]);
    at = match.index + match[0].length;
    if (one === undefined) continue;
    if (one.data.startsWith('[DONE]')) {
      ended = true;
      break;
    }
    take(one, values);
  }
  runs?.flushInto(values);
  return { values, at, ended };
}

interface EventData {
  data: string;
  name: string | undefined;
  /** The event's text before its data and the end that closed it, when the data is the rest of the event. */
  framing?: EventFraming;
}

/** One event's data and name; undefined for comments and events without data. */
function toData(event: string, end: string): EventData | undefined {
  // Nearly every event is one `data:` line: it needs no splitting.
  if (event.startsWith('data: ') && event.indexOf('\n') === -1 && event.indexOf('\r') === -1)
    return { data: event.slice(6), name: undefined, framing: { head: 'data: ', end } };
  let name: string | undefined;
  const data: string[] = [];
  const lines = event.split(/\r\n|\n|\r/);
  for (const line of lines) {
    if (line.startsWith('data:')) data.push(line.slice(line[5] === ' ' ? 6 : 5));
    else if (line.startsWith('event:')) name = line.slice(6).trim();
  }
  if (data.length === 0) return undefined;
  const joined = data.join('\n');
  // One data line, the last: the event is its head and then the data (an Anthropic `event:` line, then `data:`).
  const single = data.length === 1 && lines.at(-1)?.startsWith('data:') && event.endsWith(joined);
  return {
    data: joined,
    name,
    ...(single ? { framing: { head: event.slice(0, event.length - joined.length), end } } : {}),
  };
}
