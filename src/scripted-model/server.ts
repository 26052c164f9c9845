// Node: a scripted model behind real HTTP in the APIs of the providers (each provider folder's scripted-dialect.ts,
// named by the provider table), so tests and demos run the real SDK clients. Turns are served in order to whoever asks, in whichever API it asks; every request body is
// recorded; running out of turns fails loudly.
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ChatMessage, ToolSchema } from '../protocol/model.js';
import { PROVIDERS } from '../providers/table.js';
import type { ScriptedDialect, StreamEvent } from './dialect.js';
import { answerFor, loadScript } from './script.js';
import type { ScriptTurn } from './script.js';

export type { ScriptTurn } from './script.js';

/**
 * The APIs the server speaks, each on its own route (providers of one API share it); one script serves them all. Each
 * server makes its own: a dialect may remember what it answered (the Responses API checks that reasoning comes back
 * with the calls it led to).
 */
async function createDialects(): Promise<ScriptedDialect[]> {
  const modules = await Promise.all(PROVIDERS.map((line) => line.scripted()));
  const dialects = new Map<string, ScriptedDialect>();
  for (const module of new Set(modules)) {
    const dialect = module.createScriptedDialect();
    if (!dialects.has(dialect.path)) dialects.set(dialect.path, dialect);
  }
  return [...dialects.values()];
}

/** The body of the server's own errors (an unknown route, a failure of its own): the OpenAI error shape. */
function serverErrorBody(code: string, message: string): unknown {
  return { error: { message, type: 'scripted_model_error', code } };
}

/** One request body as received (Chat Completions' shape typed; other APIs' bodies are recorded as they came). */
export interface RecordedRequest {
  model?: string;
  messages: ChatMessage[];
  tools?: ToolSchema[];
  stream?: boolean;
  [key: string]: unknown;
}

/** Options of `startScriptedModelServer`. */
export interface ScriptedModelServerOptions {
  /** The turns, or the path of a `.json` array / `.jsonl` file of turns. */
  script: ScriptTurn[] | string;
  /** 0 (the default) picks a free port. */
  port?: number;
  host?: string;
  /** Receives one line per served turn and per failure (the CLI prints them to stderr). */
  log?: (line: string) => void;
  /** Keep only the last N request bodies (long runs); default: every one. */
  keepRequests?: number;
  /**
   * Answer each transcript-compaction request (recognised by the summariser's prompt) with this summary, without
   * taking a turn: the script then describes the task's steps whenever compaction happens.
   */
  compactionSummary?: string;
  /** Wait this long before every answer (simulated model latency); a turn's own `delay_ms` adds to it. */
  latencyMs?: number;
  /**
   * Called as each event of a paced stream (a turn with `chunk_delay_ms` or `end_delay_ms`) is handed to the socket:
   * when a chunk left the model, for measuring how long it takes to reach a terminal.
   */
  onStreamEvent?: (event: StreamEvent) => void;
}

/** A running scripted model server. */
export interface ScriptedModelServer {
  /** Base URL ending in `/v1`, for `OPENAI_BASE_URL` or the provider's `baseURL`. */
  url: string;
  /** Every JSON body a model route received, in arrival order. */
  requests: RecordedRequest[];
  /** Messages of the script failures answered so far (exhaustion, failed expectations). */
  failures: string[];
  /** The Authorization header of each request in `requests` (undefined when none was sent): who sent which key. */
  authorizations: (string | undefined)[];
  /** Turns not served yet. */
  remaining(): number;
  /** Endless streams (a turn's `endless_stream`) still being written: 0 once every client has gone. */
  endlessStreams(): number;
  close(): Promise<void>;
}

/** Starts the scripted model server; see docs/scripted-model.md for the script format. */
export async function startScriptedModelServer(options: ScriptedModelServerOptions): Promise<ScriptedModelServer> {
  const turns = await loadScript(options.script);
  const dialects = await createDialects();
  const log = options.log ?? (() => undefined);
  const requests: RecordedRequest[] = [];
  const failures: string[] = [];
  const authorizations: (string | undefined)[] = [];
  const closing = new AbortController();
  const endless = { open: 0 };
  let served = 0;
  const taken: boolean[] = [];

  const serve = async (dialect: ScriptedDialect, request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const refuse = (status: number, code: string, message: string): void => {
      if (status >= 500) {
        failures.push(message);
        log(message);
      }
      sendJson(response, status, dialect.errorBody(status, code, message));
    };
    let body: unknown;
    try {
      body = JSON.parse(await readBody(request));
    } catch (error) {
      return refuse(400, 'invalid_json', `Scripted model: request body is not JSON (${(error as Error).message})`);
    }
    if (typeof body !== 'object' || body === null || Array.isArray(body))
      return refuse(400, 'invalid_request', 'Scripted model: a request body is a JSON object');
    const read = dialect.read(body as Record<string, unknown>);
    if (!read.ok) return refuse(read.status, 'invalid_request', read.message);
    requests.push(body as RecordedRequest);
    authorizations.push(request.headers.authorization);
    if (options.keepRequests !== undefined && requests.length > options.keepRequests) {
      requests.splice(0, requests.length - options.keepRequests);
      authorizations.splice(0, authorizations.length - options.keepRequests);
    }
    if (options.latencyMs) await sleep(options.latencyMs, undefined, { signal: closing.signal }).catch(() => undefined);
    const promptChars = JSON.stringify(read.prompt).length;
    const created = Math.floor(Date.now() / 1000);
    const includeUsage = dialect.includeUsage?.(body as Record<string, unknown>) ?? true;
    if (options.compactionSummary !== undefined && read.compaction) {
      const summary: ScriptTurn = { content: options.compactionSummary };
      const renderOptions = { turnNumber: 0, model: 'scripted', created, promptChars };
      if (!read.stream) return sendJson(response, 200, dialect.render(summary, renderOptions));
      return sendStream(response, dialect.renderEvents(summary, { ...renderOptions, includeUsage }), dialect.done);
    }
    // Claimed before any await, so concurrent requests take consecutive turns.
    const index = nextTurnIndex(turns, taken, read.prompt);
    const turn = index === undefined ? undefined : turns[index];
    if (turn === undefined || index === undefined) {
      return refuse(
        500,
        'script_exhausted',
        `Scripted model: script exhausted after ${turns.length} turns (request ${requests.length} has no turn left to answer it)`,
      );
    }
    const turnNumber = index + 1;
    if (turn.reject_tools === true && read.offersTools === true) {
      // Refused before the model would run, so the turn stays for the request made again without tools.
      const model = turn.model ?? read.model ?? 'scripted';
      return refuse(400, 'invalid_request', `${model} does not support tools`);
    }
    const mismatch = checkExpectation(turn, read.lastToolResult);
    if (mismatch !== undefined) {
      // Not consumed: a retry of the same request fails the same way instead of silently taking the next turn.
      return refuse(500, 'expectation_failed', `Scripted model: turn ${turnNumber} expectation failed: ${mismatch}`);
    }
    served += 1;
    taken[index] = true;
    log(`scripted model: serving turn ${turnNumber}/${turns.length}`);
    if (turn.delay_ms) await sleep(turn.delay_ms, undefined, { signal: closing.signal }).catch(() => undefined);
    if (response.destroyed || closing.signal.aborted) return;
    if (turn.error) {
      const status = turn.error.status;
      const errorBody =
        turn.error.body ?? dialect.errorBody(status, 'scripted_error', `Scripted error (HTTP ${status})`);
      return sendJson(response, status, errorBody, turn.error.headers);
    }
    const renderOptions = { turnNumber, model: turn.model ?? read.model ?? 'scripted', created, promptChars };
    // A connection reset: a non-streaming request gets no answer at all, a stream gets half its events first.
    if (turn.drop_connection === true && !read.stream) return void response.socket?.destroy();
    const answer = answerFor(turn, read);
    if (!read.stream) return sendJson(response, 200, dialect.render(answer, renderOptions));
    if (turn.endless_stream) {
      const started = dialect.renderEvents({ ...answer, truncate_stream: true }, { ...renderOptions, includeUsage });
      return streamEndlessly(response, started, turn.endless_stream, closing.signal, endless);
    }
    const events = dialect.renderEvents(answer, { ...renderOptions, includeUsage });
    if (turn.drop_connection === true) return dropMidStream(response, events);
    if (turn.stream_error) {
      const sent = events.slice(0, Math.ceil(events.length / 2));
      return sendStream(response, [...sent, dialect.streamError(turn.stream_error, sent.length)], undefined);
    }
    // A truncated stream just stops: no end, no usage, no done line.
    const done = turn.truncate_stream === true ? undefined : dialect.done;
    if (turn.chunk_delay_ms || turn.end_delay_ms) {
      const pacing = { chunkMs: turn.chunk_delay_ms ?? 0, endMs: turn.end_delay_ms ?? 0 };
      return sendPacedStream(response, events, done, pacing, closing.signal, options.onStreamEvent);
    }
    sendStream(response, events, done);
  };

  const fail = (response: ServerResponse, status: number, code: string, message: string): void =>
    sendJson(response, status, serverErrorBody(code, message));

  // What `GET /v1/models` lists: the models the script's turns answer as, in order, else the one default name.
  const declared = [...new Set(turns.flatMap((turn) => (turn.model ? [turn.model] : [])))];
  const models = (declared.length > 0 ? declared : ['scripted']).map((id) => ({
    id,
    object: 'model',
    created: 0,
    owned_by: 'durable-agent',
  }));

  const server = createServer((request, response) => {
    const path = new URL(request.url ?? '/', 'http://scripted.invalid').pathname.replace(/\/+$/, '');
    const dialect = dialects.find((candidate) => candidate.path === path);
    const handled =
      request.method === 'POST' && dialect
        ? serve(dialect, request, response)
        : request.method === 'GET' && path === '/v1/models'
          ? Promise.resolve(sendJson(response, 200, { object: 'list', data: models }))
          : Promise.resolve(
              fail(response, 404, 'not_found', `Scripted model: no route for ${request.method} ${path || '/'}`),
            );
    handled.catch((error: unknown) => {
      if (!response.headersSent) fail(response, 500, 'internal_error', `Scripted model: ${(error as Error).message}`);
      else response.destroy();
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;

  return {
    url: `http://${host}:${address.port}/v1`,
    requests,
    authorizations,
    failures,
    remaining: () => turns.length - served,
    endlessStreams: () => endless.open,
    close: async () => {
      closing.abort();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * The turn a request gets: the first not served yet whose `for_task` its first user message contains, else the first
 * not served yet without `for_task`. A script without `for_task` is served in order.
 */
function nextTurnIndex(turns: readonly ScriptTurn[], taken: readonly boolean[], prompt: unknown): number | undefined {
  let open: number | undefined;
  let task: string | undefined;
  for (let index = 0; index < turns.length; index++) {
    if (taken[index]) continue;
    const wanted = turns[index]!.for_task;
    if (wanted === undefined) {
      open ??= index;
      continue;
    }
    task ??= firstUserText(prompt) ?? '';
    if (task.includes(wanted)) return index;
  }
  return open;
}

/** The first user message of a request's prompt, in any dialect's shape (its content as JSON). */
function firstUserText(value: unknown): string | undefined {
  if (Array.isArray(value)) {
    for (const item of value) {
      const found = firstUserText(item);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const record = value as Record<string, unknown>;
  if (record.role === 'user') return JSON.stringify(record.content);
  for (const key of ['messages', 'input']) if (key in record) return firstUserText(record[key]);
  return undefined;
}

// The one assertion a script can make about a request: what the latest tool result says.
function checkExpectation(turn: ScriptTurn, lastTool: string | undefined): string | undefined {
  const wanted = turn.expect?.last_tool_contains;
  if (!wanted || wanted.length === 0) return undefined;
  if (lastTool === undefined)
    return `expected the last tool result to contain ${JSON.stringify(wanted)}, but the request has no tool result`;
  const missing = wanted.filter((text) => !lastTool.includes(text));
  if (missing.length === 0) return undefined;
  const preview = lastTool.length > 500 ? `${lastTool.slice(0, 500)}…` : lastTool;
  return `expected the last tool result to contain ${JSON.stringify(missing)}, but it was: ${preview}`;
}

const STREAM_BATCH = 1000;

function sendStream(response: ServerResponse, events: StreamEvent[], done: string | undefined): void {
  response.writeHead(200, {
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
  });
  // Written a batch of events at a time: a megabyte streamed a few characters per event is 300,000 events.
  for (let start = 0; start < events.length; start += STREAM_BATCH)
    response.write(
      events
        .slice(start, start + STREAM_BATCH)
        .map(sseLine)
        .join(''),
    );
  if (done) response.write(done);
  response.end();
}

// One event at a time, `chunkMs` apart, and `endMs` before the last one: text that arrives over time, as a model's does.
async function sendPacedStream(
  response: ServerResponse,
  events: StreamEvent[],
  done: string | undefined,
  pacing: { chunkMs: number; endMs: number },
  closing: AbortSignal,
  onEvent: ((event: StreamEvent) => void) | undefined,
): Promise<void> {
  response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  for (const [index, event] of events.entries()) {
    const pause = index === events.length - 1 ? pacing.endMs : index > 0 ? pacing.chunkMs : 0;
    if (pause > 0) await sleep(pause, undefined, { signal: closing }).catch(() => undefined);
    if (response.destroyed || closing.aborted) return;
    response.write(sseLine(event));
    onEvent?.(event);
  }
  if (done) response.write(done);
  response.end();
}

// Writes as fast as the client reads (backpressure), until it closes the connection or the server closes.
async function streamEndlessly(
  response: ServerResponse,
  events: StreamEvent[],
  mode: 'events' | 'one_event',
  closing: AbortSignal,
  endless: { open: number },
): Promise<void> {
  response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  endless.open += 1;
  let gone = false;
  response.once('close', () => (gone = true));
  try {
    response.write(events.map(sseLine).join(''));
    const last = events.at(-1);
    let piece: string;
    if (mode === 'one_event' || !last) {
      response.write('data: {"never":"');
      piece = 'x'.repeat(64 * 1024);
    } else {
      piece = sseLine(last).repeat(Math.max(1, Math.floor((64 * 1024) / sseLine(last).length)));
    }
    while (!gone && !closing.aborted) {
      if (!response.write(piece)) await Promise.race([once(response, 'drain'), once(response, 'close')]);
    }
  } catch {
    // The client went away mid-write.
  } finally {
    endless.open -= 1;
    response.destroy();
  }
}

function sseLine({ event, data }: StreamEvent): string {
  return `${event ? `event: ${event}\n` : ''}data: ${JSON.stringify(data)}\n\n`;
}

// Sends the first half of the events, lets them reach the client, then destroys the socket without ending the
// response: the client sees a stream that started and then a connection error, as when a proxy or the endpoint dies.
function dropMidStream(response: ServerResponse, events: StreamEvent[]): void {
  response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  for (const event of events.slice(0, Math.ceil(events.length / 2))) response.write(sseLine(event));
  response.write('', () => response.socket?.destroy());
}

function sendJson(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  response.writeHead(status, { ...headers, 'content-type': 'application/json' });
  response.end(JSON.stringify(body));
}

async function readBody(request: IncomingMessage): Promise<string> {
  const parts: Buffer[] = [];
  for await (const part of request) parts.push(part as Buffer);
  return Buffer.concat(parts).toString('utf8');
}
