// Node: a Temporal remote codec endpoint for the Web UI (POST …/decode and …/encode with `{ payloads }`, GET …/health).
// Decoding shows stored content in place of content keys and External Storage references; encoding is the identity,
// since nothing is encrypted or compressed. The UI calls it from the browser, so it answers CORS for the UI's origins.
// It shows whatever the store holds, so every request passes codec-access.ts first: the right Host, the UI's Origin,
// and a caller who is the operator.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { CODEC_COOKIE, codecRefusal, defaultCodecHosts, operatorUids, sameSecret } from './codec-access.js';
import type { CodecAccess } from './codec-access.js';
import type { ContentStore } from './content-store.js';
import { decodePayloads } from './decode-payloads.js';
import type { JsonPayload } from './decode-payloads.js';
import type { ExpandLimits } from './expand-content.js';

/** Default port of the codec endpoint (the embedded Web UI's is 8233). */
export const DEFAULT_CODEC_PORT = 8234;

// A history page's payloads, base64 in JSON; far above what the UI sends, far below what would hurt this process.
const MAX_BODY_BYTES = 64 * 1024 * 1024;
// The UI sends these (Authorization only when told to pass its access token).
const ALLOWED_HEADERS = 'X-Namespace, Content-Type, Authorization';

/** Options of `startCodecServer`. */
export interface CodecServerOptions {
  store: ContentStore;
  /** Default 8234; 0 picks a free port. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** Web UI origins allowed to call it from the browser, e.g. `http://localhost:8080`. */
  corsOrigins?: string[];
  /**
   * Host header values it answers (`name:port`), for a browser that reaches it by a name; default: its own address
   * and port, with `localhost:port` on loopback. A listener on every interface has no default: name them.
   */
  allowedHosts?: string[];
  /** The secret a caller from another machine presents (cookie from `/login?token=…`, or bearer); default: none. */
  token?: string;
  /** Local users served on loopback (default: this process's user and root). */
  operatorUids?: number[];
  limits?: Partial<ExpandLimits>;
  /** Receives one line per failed request (default: stderr). */
  log?: (line: string) => void;
}

/** A listening codec endpoint. */
export interface CodecServer {
  /** `http://host:port`, the value for `--ui-codec-endpoint` or `TEMPORAL_CODEC_ENDPOINT`. */
  url: string;
  close(): Promise<void>;
}

/** Starts the endpoint; resolves once it listens. */
export async function startCodecServer(options: CodecServerOptions): Promise<CodecServer> {
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const origins = new Set(options.corsOrigins ?? []);
  if (origins.has('*')) throw new Error('the codec endpoint allows named Web UI origins only, not *');
  const allowOrigin = (origin: string | undefined) => origin !== undefined && origins.has(origin);
  // Known once the listener has its address; no request arrives before.
  const known: { access?: CodecAccess } = {};

  const server = http.createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      log(
        `codec endpoint: ${request.method} ${request.url}: ${error instanceof Error ? error.message : String(error)}`,
      );
      if (!response.headersSent) send(response, 500, { error: 'internal error; see the codec endpoint log' });
      else response.destroy();
    });
  });

  async function handle(request: http.IncomingMessage, response: http.ServerResponse): Promise<void> {
    const origin = request.headers.origin;
    if (allowOrigin(origin)) {
      // Echo the one origin rather than `*`, so a UI that sends credentials is answered too.
      response.setHeader('Access-Control-Allow-Origin', origin!);
      response.setHeader('Access-Control-Allow-Credentials', 'true');
    }
    response.setHeader('Vary', 'Origin');
    // Only the last path segment counts, so the endpoint can be mounted under any prefix (the protocol allows it).
    const action = new URL(request.url ?? '/', 'http://codec').pathname.replace(/\/+$/, '').split('/').pop();

    const refusal = await codecRefusal(request, known.access!, request.method === 'OPTIONS' || action === 'login');
    if (refusal) return send(response, refusal.status, { error: refusal.error });
    if (action === 'login' && request.method === 'GET') return login(request, response);

    if (request.method === 'OPTIONS') {
      response.setHeader('Access-Control-Allow-Methods', 'POST, GET, OPTIONS');
      response.setHeader('Access-Control-Allow-Headers', ALLOWED_HEADERS);
      response.setHeader('Access-Control-Max-Age', '600');
      response.writeHead(204).end();
      return;
    }
    if (action === 'health' && (request.method === 'GET' || request.method === 'HEAD'))
      return send(response, 200, { status: 'ok', store: options.store.description });
    if (action !== 'decode' && action !== 'encode')
      return send(response, 404, { error: 'POST /decode or /encode, GET /health' });
    if (request.method !== 'POST') return send(response, 405, { error: `${action} takes POST` });
    // The UI sends JSON, which a page can only send after a preflight: a cross-site form or simple request stops here.
    if (!/^application\/json\s*(;|$)/i.test(request.headers['content-type'] ?? ''))
      return send(response, 415, { error: `${action} takes Content-Type: application/json` });

    const body = await readBody(request);
    if (body === undefined) return send(response, 413, { error: `body over ${MAX_BODY_BYTES} bytes` });
    const payloads = parsePayloads(body);
    if (typeof payloads === 'string') return send(response, 400, { error: payloads });
    if (action === 'encode') return send(response, 200, { payloads });
    const decoded = await decodePayloads(payloads, options.store, {
      ...(options.limits ? { limits: options.limits } : {}),
      onError: (error) =>
        log(
          `codec endpoint: a payload passed through undecoded: ${error instanceof Error ? error.message : String(error)}`,
        ),
    });
    send(response, 200, { payloads: decoded });
  }

  /** `/login?token=…`, opened once in the browser: sets the cookie a Web UI that includes credentials sends. */
  function login(request: http.IncomingMessage, response: http.ServerResponse): void {
    const token = new URL(request.url ?? '/', 'http://codec').searchParams.get('token') ?? '';
    if (options.token === undefined || !sameSecret(token, options.token))
      return send(response, 401, { error: 'this sign-in link is not the codec endpoint’s' });
    response.setHeader(
      'Set-Cookie',
      `${CODEC_COOKIE}=${encodeURIComponent(options.token)}; Path=/; HttpOnly; SameSite=Strict; Max-Age=31536000`,
    );
    response.setHeader('Cache-Control', 'no-store');
    response
      .writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8' })
      .end('Signed in: a Web UI that includes credentials in its codec calls now shows stored content.\n');
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? DEFAULT_CODEC_PORT, options.host ?? '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  const everywhere = address.address === '0.0.0.0' || address.address === '::';
  known.access = {
    hosts: new Set(
      (options.allowedHosts ?? (everywhere ? [] : defaultCodecHosts(address.address, address.port))).map((name) =>
        name.toLowerCase(),
      ),
    ),
    origins,
    operatorUids: options.operatorUids ?? operatorUids(),
    ...(options.token === undefined ? {} : { token: options.token }),
  };
  return {
    url: `http://${host}:${address.port}`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        // Keep-alive connections of a browser would otherwise hold close() open.
        server.closeAllConnections();
      }),
  };
}

function send(response: http.ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(body));
}

async function readBody(request: http.IncomingMessage): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let length = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    length += chunk.byteLength;
    // Read on without keeping it: leaving the body unread would reset the connection before the 413 arrives.
    if (length <= MAX_BODY_BYTES) chunks.push(chunk);
  }
  return length > MAX_BODY_BYTES ? undefined : Buffer.concat(chunks).toString('utf8');
}

/** The request's payloads, or what is wrong with the body. */
function parsePayloads(body: string): JsonPayload[] | string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body) as unknown;
  } catch {
    return 'the body is not JSON';
  }
  const payloads = (parsed as { payloads?: unknown } | null)?.payloads;
  if (!Array.isArray(payloads) || !payloads.every((payload) => payload !== null && typeof payload === 'object'))
    return 'expected {"payloads": [{"metadata": {…}, "data": "…"}, …]}';
  return payloads as JsonPayload[];
}
