// Node: reads an OpenAI event stream (server-sent events: Chat Completions chunks, Responses events) in linear time,
// a network read at a time.
// The openai SDK's own reader copies everything it has buffered for every event it takes out, and runs each event
// through three async generators: for a megabyte of tool arguments streamed a token at a time (some 300,000 events,
// arriving in large reads from a fast local server) that is seconds of work before the assembler sees anything.
// The SDK still makes the request (auth, base URL, HTTP errors); only the body is read here, with its semantics:
// `[DONE]` ends the stream, an event carrying `error` is thrown as the SDK's APIError.
import { APIError } from 'openai';
import type { OutputMeter } from './output-cap.js';
import type { StreamChunk } from './openai-chat/stream-assembler.js';

// An event ends at a blank line; servers may use any of the three line endings.
const EVENT_END = /\r\n\r\n|\n\n|\r\r/g;

/** The chunks of a streamed chat completion, in batches: all the events one network read completed. */
export function readChatChunks(response: Response, meter?: OutputMeter): AsyncGenerator<StreamChunk[]> {
  return readEventData<StreamChunk>(response, meter);
}

/**
 * The JSON data of each event of a stream, in batches: all the events one network read completed. With a `meter`, an
 * event still being received must fit the turn's cap too: one event that never ends is stopped like a turn that
 * never ends (the assembler meters the content of the events it takes).
 */
export async function* readEventData<T>(response: Response, meter?: OutputMeter): AsyncGenerator<T[]> {
  if (!response.body) throw new Error('The streamed response has no body.');
  // Node's fetch gives a web ReadableStream of bytes; the DOM lib's typings are not loaded here.
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
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
      const chunks: T[] = [];
      for (const event of events) {
        const chunk = toData<T>(event, response.headers);
        if (chunk === 'done') {
          if (chunks.length > 0) yield chunks;
          return;
        }
        if (chunk) chunks.push(chunk);
      }
      if (chunks.length > 0) yield chunks;
      if (done) return;
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

/** One event's data; `done` for the end marker; undefined for comments and events without data. */
function toData<T>(event: string, headers: Headers): T | 'done' | undefined {
  // Nearly every event is one `data:` line: it needs no splitting.
  if (event.startsWith('data: ') && event.indexOf('\n') === -1 && event.indexOf('\r') === -1)
    return parseData<T>(event.slice(6), undefined, headers);
  let name: string | undefined;
  const data: string[] = [];
  for (const line of event.split(/\r\n|\n|\r/)) {
    if (line.startsWith('data:')) data.push(line.slice(line[5] === ' ' ? 6 : 5));
    else if (line.startsWith('event:')) name = line.slice(6).trim();
  }
  if (data.length === 0) return undefined;
  return parseData<T>(data.join('\n'), name, headers);
}

function parseData<T>(text: string, name: string | undefined, headers: Headers): T | 'done' {
  if (text.startsWith('[DONE]')) return 'done';
  const parsed = JSON.parse(text) as T & { error?: object; message?: string };
  // A Responses `error` event carries its code and message at the top level, not under `error`.
  if (name === 'error') throw new APIError(undefined, parsed.error ?? parsed, parsed.message, headers);
  if (parsed && parsed.error) throw new APIError(undefined, parsed.error, undefined, headers);
  return parsed;
}
