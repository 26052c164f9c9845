// Node: the HTTP/HTTPS proxy of one approved network command, on a UNIX socket only that command's sandbox has bound
// in. CONNECT opens HTTPS tunnels, absolute `http://` URLs are forwarded; each host is judged (network-policy.ts), then
// resolved here and every address checked, and the connection goes to the checked address: a name cannot resolve to
// one address for the check and another for the connection. What it refuses is answered with a 403 naming the host
// and why, and kept for the command's result.
import { chmod } from 'node:fs/promises';
import { promises as dns } from 'node:dns';
import http from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import net from 'node:net';
import type { Duplex } from 'node:stream';
import os from 'node:os';
import type { ControlPlaneEndpoint } from './control-plane.js';
import { canonicalAddress } from './network-addresses.js';
import type { HostEntry, NetworkRules, ResolvedEndpoint } from './network-policy.js';
import { judgeAddresses, judgeHost, normalizeHost, parseHostEntry } from './network-policy.js';

/** A connection the proxy did not make, as the command's result reports it. */
export interface NetworkRefusal {
  host: string;
  port: number;
  reason: string;
}

export interface NetworkProxyOptions {
  /** Where to listen (inside a directory only the worker can enter). */
  socketPath: string;
  /** `host` or `host:port` entries the command was approved for; absent: public hosts only. */
  approvedHosts?: readonly string[];
  controlPlane: readonly ControlPlaneEndpoint[];
  /** Every address of a name (default: the system resolver, as the command's own lookups would). */
  resolve?: (host: string) => Promise<string[]>;
}

export interface NetworkProxy {
  /** What was refused so far, each host, port and reason once. */
  refusals(): NetworkRefusal[];
  /** Stops listening and cuts every connection still open. */
  close(): Promise<void>;
}

/** Refusals kept per command: enough to tell the model what failed, bounded however often a command retries. */
export const MAX_RECORDED_REFUSALS = 20;
const CONNECT_TIMEOUT_MS = 15_000;
// Headers that describe one hop (RFC 9110 7.6.1) and the proxy's own: never forwarded.
const HOP_HEADERS = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authorization',
  'proxy-authenticate',
  'te',
  'trailer',
  'upgrade',
]);

/** Starts the proxy of one command; it serves until `close`. */
export async function startNetworkProxy(options: NetworkProxyOptions): Promise<NetworkProxy> {
  const resolve = options.resolve ?? systemResolve;
  const approved = options.approvedHosts?.map((text) => parseHostEntry(text)).filter(isEntry);
  let rules: Promise<NetworkRules> | undefined;
  // Resolved on the first connection, so a command that makes none pays for no lookup.
  const currentRules = (): Promise<NetworkRules> =>
    (rules ??= resolveControlPlane(options.controlPlane, resolve).then((controlPlane) => ({
      ...(approved ? { approved } : {}),
      controlPlane,
      localAddresses: localAddresses(),
    })));
  const refusals = new Map<string, NetworkRefusal>();
  const refuse = (host: string, port: number, reason: string): void => {
    const key = `${host}\0${port}\0${reason}`;
    if (refusals.size < MAX_RECORDED_REFUSALS && !refusals.has(key)) refusals.set(key, { host, port, reason });
  };

  const sockets = new Set<net.Socket | Duplex>();
  const track = (socket: net.Socket | Duplex): void => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  };

  /** The checked addresses of `host`:`port`, or the status and text of a refusal (recorded). */
  const admit = async (
    rawHost: string,
    port: number,
  ): Promise<{ addresses: string[] } | { status: number; message: string }> => {
    const host = normalizeHost(rawHost);
    if (host === undefined) return { status: 400, message: `'${rawHost}' is not a host name.` };
    const current = await currentRules();
    const byName = judgeHost(current, host, port);
    if (!byName.allowed) return refused(host, port, byName.reason);
    let addresses: string[];
    try {
      addresses = net.isIP(host) ? [host] : await resolve(host);
    } catch (error) {
      const reason = `its name could not be resolved (${error instanceof Error && 'code' in error ? String(error.code) : 'no address'})`;
      refuse(host, port, reason);
      return { status: 502, message: `The sandbox's network proxy could not connect to ${host}:${port}: ${reason}.` };
    }
    if (addresses.length === 0) return refused(host, port, 'its name resolved to no address');
    const verdict = judgeAddresses(current, { host, port }, addresses);
    if (!verdict.allowed) return refused(host, port, verdict.reason);
    return { addresses };
  };
  const refused = (host: string, port: number, reason: string): { status: number; message: string } => {
    refuse(host, port, reason);
    return { status: 403, message: `The sandbox's network proxy refused ${host}:${port}: ${reason}.` };
  };
  /** A connection to the first reachable address of an admitted `host`:`port` (`shown` in messages), or what to answer. */
  const reach = async (
    host: string,
    port: number,
    shown: string,
  ): Promise<net.Socket | { status: number; message: string }> => {
    const admission = await admit(host, port);
    if ('status' in admission) return admission;
    const socket = await connectFirst(admission.addresses, port).catch((error: Error) => error);
    if (socket instanceof Error) {
      return { status: 502, message: `The sandbox's network proxy could not connect to ${shown}: ${socket.message}.` };
    }
    track(socket);
    return socket;
  };

  const tunnel = async (request: IncomingMessage, client: Duplex, head: Buffer): Promise<void> => {
    client.on('error', () => client.destroy());
    const target = parseAuthority(request.url ?? '');
    if (!target) return answerRaw(client, 400, `CONNECT needs host:port, not '${request.url ?? ''}'.`);
    const upstream = await reach(target.host, target.port, request.url ?? '');
    if (!(upstream instanceof net.Socket)) return answerRaw(client, upstream.status, upstream.message);
    if (client.destroyed) return void upstream.destroy();
    const cut = (): void => {
      client.destroy();
      upstream.destroy();
    };
    upstream.on('error', cut).on('close', cut);
    client.on('close', cut);
    client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
    if (head.length > 0) upstream.write(head);
    upstream.pipe(client);
    client.pipe(upstream);
  };

  const forward = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const url = absoluteHttpUrl(request.url ?? '');
    if (!url) {
      return answer(response, 400, 'This proxy forwards absolute http:// URLs and CONNECT tunnels (https) only.');
    }
    const port = url.port ? Number(url.port) : 80;
    const upstreamSocket = await reach(url.hostname, port, url.host);
    if (!(upstreamSocket instanceof net.Socket)) return answer(response, upstreamSocket.status, upstreamSocket.message);
    const upstream = http.request({
      createConnection: () => upstreamSocket,
      method: request.method,
      path: `${url.pathname}${url.search}`,
      headers: { ...forwardedHeaders(request.headers), host: url.host, connection: 'close' },
    });
    upstream.on('response', (reply) => {
      response.writeHead(reply.statusCode ?? 502, reply.statusMessage, forwardedHeaders(reply.headers));
      reply.pipe(response);
    });
    upstream.on('error', (error) => {
      if (!response.headersSent) answer(response, 502, `The connection to ${url.host} failed: ${error.message}.`);
      else response.destroy();
    });
    request.on('error', () => upstream.destroy());
    response.on('close', () => upstream.destroy());
    request.pipe(upstream);
  };

  const server = http.createServer();
  server.on('connection', track);
  server.on('connect', (request: IncomingMessage, client: Duplex, head: Buffer) => void tunnel(request, client, head));
  server.on('request', (request: IncomingMessage, response: ServerResponse) => void forward(request, response));
  server.on('clientError', (_error, socket: Duplex) => socket.destroy());
  await new Promise<void>((resolveListen, reject) => {
    server.once('error', reject);
    server.listen(options.socketPath, () => {
      server.off('error', reject);
      resolveListen();
    });
  });
  await chmod(options.socketPath, 0o600);

  let closed: Promise<void> | undefined;
  return {
    refusals: () => [...refusals.values()],
    close: () =>
      (closed ??= new Promise<void>((resolveClose) => {
        server.close(() => resolveClose());
        for (const socket of sockets) socket.destroy();
      })),
  };
}

async function systemResolve(host: string): Promise<string[]> {
  const answers = await dns.lookup(host, { all: true, verbatim: true });
  return answers.map((answer) => answer.address);
}

async function resolveControlPlane(
  endpoints: readonly ControlPlaneEndpoint[],
  resolve: (host: string) => Promise<string[]>,
): Promise<ResolvedEndpoint[]> {
  return await Promise.all(
    endpoints.map(async (endpoint) => {
      const host = normalizeHost(endpoint.host) ?? endpoint.host;
      // A control-plane name that does not resolve now is still refused by name.
      const addresses = net.isIP(host) ? [host] : await resolve(host).catch(() => []);
      const canonical = addresses.map(canonicalAddress).filter((address): address is string => address !== undefined);
      return { ...endpoint, host, addresses: canonical };
    }),
  );
}

function localAddresses(): Set<string> {
  const addresses = new Set<string>();
  for (const entries of Object.values(os.networkInterfaces())) {
    for (const entry of entries ?? []) {
      const address = canonicalAddress(entry.address);
      if (address) addresses.add(address);
    }
  }
  return addresses;
}

/** Connects to the first of `addresses` that answers. */
async function connectFirst(addresses: readonly string[], port: number): Promise<net.Socket> {
  let lastError: Error = new Error('no address');
  for (const address of addresses) {
    try {
      return await new Promise<net.Socket>((resolveSocket, reject) => {
        const socket = net.connect({ host: address, port, allowHalfOpen: true });
        socket.setTimeout(CONNECT_TIMEOUT_MS, () =>
          socket.destroy(new Error(`no answer within ${CONNECT_TIMEOUT_MS} ms`)),
        );
        socket.once('error', reject);
        socket.once('connect', () => {
          socket.setTimeout(0);
          socket.off('error', reject);
          resolveSocket(socket);
        });
      });
    } catch (error) {
      lastError = error as Error;
    }
  }
  throw lastError;
}

/** `host:port` or `[v6]:port` of a CONNECT request. */
function parseAuthority(authority: string): { host: string; port: number } | undefined {
  const match = /^\[([^\]]+)\]:(\d+)$/.exec(authority) ?? /^([^:[\]]+):(\d+)$/.exec(authority);
  if (!match) return undefined;
  const port = Number(match[2]);
  return port >= 1 && port <= 65_535 ? { host: match[1]!, port } : undefined;
}

function absoluteHttpUrl(text: string): URL | undefined {
  try {
    const url = new URL(text);
    return url.protocol === 'http:' && url.hostname !== '' ? url : undefined;
  } catch {
    return undefined;
  }
}

function forwardedHeaders(headers: http.IncomingHttpHeaders): http.OutgoingHttpHeaders {
  const named = String(headers.connection ?? '')
    .split(',')
    .map((name) => name.trim().toLowerCase());
  return Object.fromEntries(
    Object.entries(headers).filter(([name]) => !HOP_HEADERS.has(name) && !named.includes(name)),
  ) as http.OutgoingHttpHeaders;
}

function answer(response: ServerResponse, status: number, message: string): void {
  response.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', connection: 'close' });
  response.end(`${message}\n`);
}

function answerRaw(client: Duplex, status: number, message: string): void {
  const body = Buffer.from(`${message}\n`);
  const reason = http.STATUS_CODES[status] ?? 'Error';
  client.end(
    `HTTP/1.1 ${status} ${reason}\r\ncontent-type: text/plain; charset=utf-8\r\ncontent-length: ${body.length}\r\n` +
      `connection: close\r\n\r\n${body.toString()}`,
  );
}

function isEntry(entry: HostEntry | undefined): entry is HostEntry {
  return entry !== undefined;
}
