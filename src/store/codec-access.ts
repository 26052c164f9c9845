// Node: who may read the store through the codec endpoint. Three checks, each alone enough to stop one attacker:
// - Host is one the endpoint was told it is reached by (its own loopback address:port by default): a page whose name
//   was rebound to 127.0.0.1 (DNS rebinding) sends its own name and is refused.
// - Origin, when a browser sends one, is the Web UI's: any other page in the operator's browser is refused, and only
//   the UI's origin is ever named in Access-Control-Allow-Origin.
// - The caller is the operator: on loopback, the kernel's record of who opened the client socket (the operator's uid
//   or root; another local user is refused whatever they send); from elsewhere, the endpoint's token, as a cookie set
//   by its sign-in link or as a bearer token.
import { createHash, timingSafeEqual } from 'node:crypto';
import type http from 'node:http';
import net from 'node:net';
import { isLoopbackAddress, loopbackPeerUid } from './loopback-peer.js';

/** The cookie the sign-in link sets, which a Web UI told to include credentials sends with each call. */
export const CODEC_COOKIE = 'durable-agent-codec';

/** What the endpoint accepts. */
export interface CodecAccess {
  /** Host header values, lowercased, e.g. `127.0.0.1:8234`. */
  hosts: ReadonlySet<string>;
  /** Browser origins of the Web UI, e.g. `http://127.0.0.1:8233`. */
  origins: ReadonlySet<string>;
  /** Local users whose loopback connections are the operator's. */
  operatorUids: readonly number[];
  /** The secret a caller from another machine presents; undefined: only loopback callers of `operatorUids`. */
  token?: string;
}

/** A refused request: the status and a message that says what to change. */
export interface Refusal {
  status: 401 | 403 | 421;
  error: string;
}

/** Host header values a listener on `host`:`port` is reached by: the address itself, and `localhost` for loopback. */
export function defaultCodecHosts(host: string, port: number): string[] {
  const hosts = [`${net.isIPv6(host) ? `[${host}]` : host}:${port}`];
  // `localhost` is resolved by the browser itself, never through DNS, so it cannot be rebound to another address.
  if (isLoopbackAddress(host)) hosts.push(`localhost:${port}`);
  return hosts;
}

/** The operator: this process's user, and root, who can read the store's files anyway. */
export function operatorUids(): number[] {
  const uid = process.getuid?.();
  return uid === undefined ? [0] : [...new Set([uid, 0])];
}

/** Why `request` may not go on, or undefined when it may. `preflight`: a CORS preflight, which carries no credential. */
export async function codecRefusal(
  request: http.IncomingMessage,
  access: CodecAccess,
  preflight: boolean,
): Promise<Refusal | undefined> {
  const host = (request.headers.host ?? '').toLowerCase();
  if (!access.hosts.has(host))
    return {
      status: 421,
      error: `Host ${host || '(none)'} is not this endpoint's (${[...access.hosts].join(', ')}); see codec-server --allowed-host`,
    };
  const origin = request.headers.origin;
  if (origin !== undefined && !access.origins.has(origin))
    return { status: 403, error: `origin ${origin} is not the Web UI's; see codec-server --cors-origin` };
  if (preflight) return undefined;
  if (access.token !== undefined && presentedToken(request) !== undefined) {
    if (sameSecret(presentedToken(request)!, access.token)) return undefined;
    return { status: 401, error: 'the codec token presented is not this endpoint’s' };
  }
  const socket = request.socket;
  if (isLoopbackAddress(socket.remoteAddress)) {
    const uid = await loopbackPeerUid(socket);
    if (uid !== undefined && access.operatorUids.includes(uid)) return undefined;
    return {
      status: 403,
      error: `the caller (uid ${uid ?? 'unknown'}) is not the operator (uid ${access.operatorUids.join(' or ')})`,
    };
  }
  return {
    status: 401,
    error:
      access.token === undefined
        ? 'only local callers of the operator are served (start codec-server with DURABLE_AGENT_CODEC_TOKEN for others)'
        : 'sign in with the link in the codec endpoint’s log, and set the Web UI to include credentials',
  };
}

/** The token of a `Cookie: durable-agent-codec=…` or `Authorization: Bearer …` header. */
export function presentedToken(request: http.IncomingMessage): string | undefined {
  const bearer = /^Bearer\s+(\S+)$/i.exec(request.headers.authorization ?? '');
  if (bearer) return bearer[1];
  for (const part of (request.headers.cookie ?? '').split(';')) {
    const [name, ...value] = part.trim().split('=');
    if (name === CODEC_COOKIE) return decodeURIComponent(value.join('='));
  }
  return undefined;
}

/** Equal secrets, compared in constant time (digests first, so lengths do not leak either). */
export function sameSecret(presented: string, expected: string): boolean {
  const digest = (text: string) => createHash('sha256').update(text).digest();
  return timingSafeEqual(digest(presented), digest(expected));
}
