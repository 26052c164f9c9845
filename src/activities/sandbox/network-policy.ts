// Node-free: which connections the network proxy of an approved command lets through. A host must be one the command
// was approved for (when its hosts are known) and every address it resolves to must be reachable: never the machine
// itself, link-local (cloud metadata), multicast or the worker's control plane; private networks and this machine's
// own addresses only for a host approved by name.
import { ADDRESS_KIND_DESCRIPTION, NEVER_REACHABLE, addressKind, canonicalAddress } from './network-addresses.js';

/** One approved host: `host` (every port) or `host:port`. */
export interface HostEntry {
  host: string;
  port?: number;
}

/** An endpoint of the worker's control plane, with the addresses its host resolved to. */
export interface ResolvedEndpoint {
  host: string;
  port: number;
  /** Where the worker knows it from (`TEMPORAL_ADDRESS`, `DURABLE_AGENT_DEV_PORT`, …). */
  source: string;
  /** Canonical addresses (canonicalAddress) of `host`. */
  addresses: readonly string[];
}

/** What one proxy enforces. */
export interface NetworkRules {
  /** The hosts the command was approved for; absent: any host whose addresses are all public. */
  approved?: readonly HostEntry[];
  controlPlane: readonly ResolvedEndpoint[];
  /** Canonical addresses of this machine's interfaces: a server listening on all of them answers on each. */
  localAddresses: ReadonlySet<string>;
}

export type Verdict = { allowed: true } | { allowed: false; reason: string };

/**
 * A host as clients and the approval compare it: lower-case, no trailing dot, IDN in punycode, IPv4 in dotted quad
 * (`0x7f000001` and `127.1` are 127.0.0.1), IPv6 without brackets. Undefined when it is not a host name.
 */
export function normalizeHost(host: string): string | undefined {
  const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  if (bare === '' || /[\s/?#@\\]/.test(bare)) return undefined;
  try {
    const hostname = new URL(`http://${bare.includes(':') ? `[${bare}]` : bare}/`).hostname;
    const unbracketed = hostname.startsWith('[') ? hostname.slice(1, -1) : hostname;
    const name = unbracketed.replace(/\.$/, '');
    return name === '' ? undefined : name;
  } catch {
    return undefined;
  }
}

/** `host`, `host:port`, `[v6]`, `[v6]:port` or a bare IPv6 literal; undefined for anything else. */
export function parseHostEntry(text: string): HostEntry | undefined {
  const match = /^\[([^\]]+)\](?::(\d+))?$/.exec(text) ?? /^([^:]+)(?::(\d+))?$/.exec(text);
  const [host, port] = match ? [match[1]!, match[2]] : text.includes('::') ? [text, undefined] : [undefined, undefined];
  if (host === undefined) return undefined;
  const normalized = normalizeHost(host);
  if (normalized === undefined) return undefined;
  if (port === undefined) return { host: normalized };
  const number = Number(port);
  return Number.isInteger(number) && number >= 1 && number <= 65_535 ? { host: normalized, port: number } : undefined;
}

/** Whether `host`:`port` (normalized) is one of the approved entries. */
export function isApproved(approved: readonly HostEntry[], host: string, port: number): boolean {
  return approved.some((entry) => entry.host === host && (entry.port === undefined || entry.port === port));
}

/** The verdict on a host before it is resolved: outside an approved list it is refused without a lookup. */
export function judgeHost(rules: NetworkRules, host: string, port: number): Verdict {
  if (rules.approved === undefined || isApproved(rules.approved, host, port)) return { allowed: true };
  const list = rules.approved.map(formatEntry).join(', ') || 'none';
  return { allowed: false, reason: `not one of the hosts this command was approved for (${list})` };
}

/** The verdict on every address `host` resolved to; one refused address refuses the host. */
export function judgeAddresses(
  rules: NetworkRules,
  target: { host: string; port: number },
  addresses: readonly string[],
): Verdict {
  const named = rules.approved !== undefined && isApproved(rules.approved, target.host, target.port);
  for (const raw of addresses) {
    const address = canonicalAddress(raw);
    const kind = addressKind(raw);
    if (address === undefined || kind === undefined) {
      return { allowed: false, reason: `it resolved to '${raw}', which is not an IP address` };
    }
    const resolvedTo = address === target.host ? '' : `resolves to ${address}, `;
    if (NEVER_REACHABLE.has(kind)) {
      return {
        allowed: false,
        reason: `${resolvedTo}${ADDRESS_KIND_DESCRIPTION[kind]}: no sandboxed command may connect there`,
      };
    }
    const endpoint = rules.controlPlane.find((candidate) => isEndpoint(rules, candidate, target, address));
    if (endpoint) {
      return {
        allowed: false,
        reason: `${resolvedTo}the worker's control plane (${endpoint.source}: ${endpoint.host}:${endpoint.port})`,
      };
    }
    if (named) continue;
    if (rules.localAddresses.has(address)) {
      return {
        allowed: false,
        reason: `${resolvedTo}an address of this machine, reachable only for a host the command names and was approved for`,
      };
    }
    if (kind === 'private') {
      return {
        allowed: false,
        reason: `${resolvedTo}${ADDRESS_KIND_DESCRIPTION[kind]}, reachable only for a host the command names and was approved for`,
      };
    }
  }
  return { allowed: true };
}

/** Whether a connection to `address`:`target.port` reaches `endpoint`, on its own address or, for a local one, any. */
function isEndpoint(
  rules: NetworkRules,
  endpoint: ResolvedEndpoint,
  target: { host: string; port: number },
  address: string,
): boolean {
  if (endpoint.port !== target.port) return false;
  if (endpoint.host === target.host || endpoint.addresses.includes(address)) return true;
  // A server on the loopback or on every interface answers on each of this machine's addresses.
  const local = endpoint.addresses.some((own) => {
    const kind = addressKind(own);
    return kind === 'loopback' || kind === 'unspecified' || rules.localAddresses.has(own);
  });
  return local && rules.localAddresses.has(address);
}

function formatEntry(entry: HostEntry): string {
  const host = entry.host.includes(':') ? `[${entry.host}]` : entry.host;
  return entry.port === undefined ? host : `${host}:${entry.port}`;
}
