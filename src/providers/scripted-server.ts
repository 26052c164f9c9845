// Node: a scripted model behind real OpenAI-compatible HTTP, so tests and demos run the real `openai` client path.
// Turns are served in order to whoever asks; every request body is recorded; running out of turns fails loudly.
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ChatMessage, ToolSchema } from '../core/messages.js';
import { SUMMARISER_PROMPT } from '../core/compaction.js';
import { loadScript, renderChunks, renderCompletion } from './scripted-script.js';
import type { ScriptTurn } from './scripted-script.js';

export type { ScriptTurn } from './scripted-script.js';

/** One request body as received by `POST /v1/chat/completions`. */
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
}

/** A running scripted model server. */
export interface ScriptedModelServer {
  /** Base URL ending in `/v1`, for `OPENAI_BASE_URL` or the provider's `baseURL`. */
  url: string;
  /** Every JSON body received on `/v1/chat/completions`, in arrival order. */
  requests: RecordedRequest[];
  /** Messages of the script failures answered so far (exhaustion, failed expectations). */
  failures: string[];
  /** The Authorization header of each request in `requests` (undefined when none was sent): who sent which key. */
  authorizations: (string | undefined)[];
  /** Turns not served yet. */
  remaining(): number;
  close(): Promise<void>;
}

/** Starts the scripted model server; see docs/scripted-model.md for the script format. */
export async function startScriptedModelServer(options: ScriptedModelServerOptions): Promise<ScriptedModelServer> {
  const turns = await loadScript(options.script);
  const log = options.log ?? (() => undefined);
  const requests: RecordedRequest[] = [];
  const failures: string[] = [];
  const authorizations: (string | undefined)[] = [];
  const closing = new AbortController();
  let served = 0;

  const fail = (response: ServerResponse, status: number, code: string, message: string): void => {
    if (status >= 500) {
      failures.push(message);
      log(message);
    }
    sendJson(response, status, { error: { message, type: 'scripted_model_error', code } });
  };

  const completeChat = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    let body: unknown;
    try {
      body = JSON.parse(await readBody(request));
    } catch (error) {
      return fail(
        response,
        400,
        'invalid_json',
        `Scripted model: request body is not JSON (${(error as Error).message})`,
      );
    }
    if (
      typeof body !== 'object' ||
      body === null ||
      Array.isArray(body) ||
      !Array.isArray((body as RecordedRequest).messages)
    ) {
      return fail(
        response,
        400,
        'invalid_request',
        'Scripted model: a chat completion request is a JSON object with a "messages" array',
      );
    }
    const recorded = body as RecordedRequest;
    requests.push(recorded);
    authorizations.push(request.headers.authorization);
    if (options.keepRequests !== undefined && requests.length > options.keepRequests) {
      requests.splice(0, requests.length - options.keepRequests);
      authorizations.splice(0, authorizations.length - options.keepRequests);
    }
    if (options.latencyMs) await sleep(options.latencyMs, undefined, { signal: closing.signal }).catch(() => undefined);
    if (options.compactionSummary !== undefined && isCompactionRequest(recorded)) {
      const summary: ScriptTurn = { content: options.compactionSummary };
      const renderOptions = {
        turnNumber: 0,
        model: 'scripted',
        created: Math.floor(Date.now() / 1000),
        promptChars: JSON.stringify(recorded.messages).length,
      };
      if (recorded.stream !== true) return sendJson(response, 200, renderCompletion(summary, renderOptions));
      return sendStream(response, renderChunks(summary, { ...renderOptions, includeUsage: true }), true);
    }
    // Claimed before any await, so concurrent requests take consecutive turns.
    const turn = turns[served];
    if (turn === undefined) {
      return fail(
        response,
        500,
        'script_exhausted',
        `Scripted model: script exhausted after ${turns.length} turns (request ${requests.length} has no turn left to answer it)`,
      );
    }
    const turnNumber = served + 1;
    const mismatch = checkExpectation(turn, recorded);
    if (mismatch !== undefined) {
      // Not consumed: a retry of the same request fails the same way instead of silently taking the next turn.
      return fail(
        response,
        500,
        'expectation_failed',
        `Scripted model: turn ${turnNumber} expectation failed: ${mismatch}`,
      );
    }
    served += 1;
    log(`scripted model: serving turn ${turnNumber}/${turns.length}`);
    if (turn.delay_ms) await sleep(turn.delay_ms, undefined, { signal: closing.signal }).catch(() => undefined);
    if (response.destroyed || closing.signal.aborted) return;
    if (turn.error) {
      const errorBody = turn.error.body ?? {
        error: { message: `Scripted error (HTTP ${turn.error.status})`, type: 'scripted_error', code: null },
      };
      return sendJson(response, turn.error.status, errorBody, turn.error.headers);
    }
    const renderOptions = {
      turnNumber,
      model: turn.model ?? (typeof recorded.model === 'string' ? recorded.model : 'scripted'),
      created: Math.floor(Date.now() / 1000),
      promptChars: JSON.stringify(recorded.messages).length,
    };
    // A connection reset: a non-streaming request gets no answer at all, a stream gets half its chunks first.
    if (turn.drop_connection === true && recorded.stream !== true) return void response.socket?.destroy();
    if (recorded.stream !== true) return sendJson(response, 200, renderCompletion(turn, renderOptions));
    const streamOptions = recorded.stream_options as { include_usage?: boolean } | undefined;
    const chunks = renderChunks(turn, { ...renderOptions, includeUsage: streamOptions?.include_usage === true });
    if (turn.drop_connection === true) return dropMidStream(response, chunks);
    // A truncated stream just stops: no finish reason, no usage, no [DONE].
    sendStream(response, chunks, turn.truncate_stream !== true);
  };

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
    const handled =
      request.method === 'POST' && path === '/v1/chat/completions'
        ? completeChat(request, response)
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
    close: async () => {
      closing.abort();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

// The one assertion a script can make about a request: what the latest tool result says.
function checkExpectation(turn: ScriptTurn, request: RecordedRequest): string | undefined {
  const wanted = turn.expect?.last_tool_contains;
  if (!wanted || wanted.length === 0) return undefined;
  const lastTool = request.messages.findLast((message) => message.role === 'tool');
  if (!lastTool)
    return `expected the last tool result to contain ${JSON.stringify(wanted)}, but the request has no tool message`;
  const content = typeof lastTool.content === 'string' ? lastTool.content : JSON.stringify(lastTool.content);
  const missing = wanted.filter((text) => !content.includes(text));
  if (missing.length === 0) return undefined;
  const preview = content.length > 500 ? `${content.slice(0, 500)}…` : content;
  return `expected the last tool result to contain ${JSON.stringify(missing)}, but it was: ${preview}`;
}

const STREAM_BATCH = 1000;

function sendStream(response: ServerResponse, chunks: unknown[], done: boolean): void {
  response.writeHead(200, {
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
  });
  // Written a batch of events at a time: a megabyte streamed a few characters per event is 300,000 events.
  for (let start = 0; start < chunks.length; start += STREAM_BATCH)
    response.write(
      chunks
        .slice(start, start + STREAM_BATCH)
        .map((chunk) => `data: ${JSON.stringify(chunk)}\n\n`)
        .join(''),
    );
  if (done) response.write('data: [DONE]\n\n');
  response.end();
}

// Sends the first half of the chunks, lets them reach the client, then destroys the socket without ending the
// response: the client sees a stream that started and then a connection error, as when a proxy or the endpoint dies.
function dropMidStream(response: ServerResponse, chunks: unknown[]): void {
  response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  for (const chunk of chunks.slice(0, Math.ceil(chunks.length / 2)))
    response.write(`data: ${JSON.stringify(chunk)}\n\n`);
  response.write('', () => response.socket?.destroy());
}

function isCompactionRequest(request: RecordedRequest): boolean {
  const first = request.messages[0];
  return first?.role === 'system' && typeof first.content === 'string' && first.content.startsWith(SUMMARISER_PROMPT);
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
