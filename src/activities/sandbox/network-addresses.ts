// Node-free: what kind of address an IP literal is, for the network proxy of sandboxed commands. An IPv6 address that
// carries an IPv4 one (mapped `::ffff:127.0.0.1`, compatible, NAT64, 6to4) is judged by the IPv4 address as well, so
// no spelling of a refused address passes as another.

/**
 * `public`: anything routable on the internet. `private`: site-local networks (RFC 1918, carrier-grade NAT, unique
 * local IPv6, documentation and benchmark ranges) — reachable only for a host approved by name. The rest is never
 * reachable from a sandboxed command.
 */
export type AddressKind = 'public' | 'private' | 'loopback' | 'link_local' | 'unspecified' | 'multicast' | 'reserved';

/** Kinds no approval reaches: the machine itself, cloud metadata (169.254.169.254), broadcast and multicast. */
export const NEVER_REACHABLE: ReadonlySet<AddressKind> = new Set([
  'loopback',
  'link_local',
  'unspecified',
  'multicast',
  'reserved',
]);

/** Words for the model and the operator, by kind. */
export const ADDRESS_KIND_DESCRIPTION: Readonly<Record<AddressKind, string>> = {
  public: 'a public address',
  private: 'a private network address',
  loopback: 'a loopback address (this machine)',
  link_local: 'a link-local address (cloud metadata and the local link)',
  unspecified: 'an unspecified address (this machine)',
  multicast: 'a multicast address',
  reserved: 'a reserved or broadcast address',
};

// Most severe first: an address inside two ranges takes the first.
const IPV4_RANGES: readonly (readonly [string, number, AddressKind])[] = [
  ['0.0.0.0', 8, 'unspecified'],
  ['127.0.0.0', 8, 'loopback'],
  ['169.254.0.0', 16, 'link_local'],
  ['224.0.0.0', 4, 'multicast'],
  ['240.0.0.0', 4, 'reserved'],
  ['10.0.0.0', 8, 'private'],
  ['100.64.0.0', 10, 'private'],
  ['172.16.0.0', 12, 'private'],
  ['192.0.0.0', 24, 'private'],
  ['192.0.2.0', 24, 'private'],
  ['192.168.0.0', 16, 'private'],
  ['198.18.0.0', 15, 'private'],
  ['198.51.100.0', 24, 'private'],
  ['203.0.113.0', 24, 'private'],
];

const IPV6_RANGES: readonly (readonly [string, number, AddressKind])[] = [
  ['::', 128, 'unspecified'],
  ['::1', 128, 'loopback'],
  ['fe80::', 10, 'link_local'],
  ['ff00::', 8, 'multicast'],
  ['100::', 64, 'reserved'],
  // Teredo hides its IPv4 endpoints behind a XOR: nothing legitimate needs it from a sandbox.
  ['2001::', 32, 'reserved'],
  ['fec0::', 10, 'private'],
  ['fc00::', 7, 'private'],
  ['2001:db8::', 32, 'private'],
];

/** The kind of an IP literal (IPv4 dotted quad or IPv6, with or without brackets); undefined when it is not one. */
export function addressKind(address: string): AddressKind | undefined {
  const v4 = parseIpv4(address);
  if (v4 !== undefined) return ipv4Kind(v4);
  const v6 = parseIpv6(address);
  if (v6 === undefined) return undefined;
  // `::` and `::1` are ranges of their own; every other address that carries an IPv4 one is judged by that one.
  const own = rangeKind(v6, ipv6Table());
  if (own !== undefined) return own;
  const embedded = embeddedIpv4(v6);
  return embedded !== undefined ? ipv4Kind(embedded) : 'public';
}

/** A canonical spelling of an IP literal (`::ffff:7f00:1` and `::ffff:127.0.0.1` alike), to compare addresses. */
export function canonicalAddress(address: string): string | undefined {
  const v4 = parseIpv4(address);
  if (v4 !== undefined) return formatIpv4(v4);
  const v6 = parseIpv6(address);
  if (v6 === undefined) return undefined;
  // An IPv4-mapped address is the IPv4 address itself on a dual-stack socket.
  if (v6.slice(0, 5).every((group) => group === 0) && v6[5] === 0xffff) return formatIpv4(v6[6]! * 65_536 + v6[7]!);
  return v6.map((group) => group.toString(16)).join(':');
}

function ipv4Kind(value: number): AddressKind {
  if (value === 0xffffffff) return 'reserved';
  return rangeKind(ipv4Groups(value), ipv4Table()) ?? 'public';
}

type RangeTable = readonly (readonly [readonly number[], number, AddressKind])[];
let ipv4Ranges: RangeTable | undefined;
let ipv6Ranges: RangeTable | undefined;

function ipv4Table(): RangeTable {
  return (ipv4Ranges ??= IPV4_RANGES.map(([base, bits, kind]) => [ipv4Groups(parseIpv4(base)!), bits, kind] as const));
}

function ipv6Table(): RangeTable {
  return (ipv6Ranges ??= IPV6_RANGES.map(([base, bits, kind]) => [parseIpv6(base)!, bits, kind] as const));
}

/** The IPv4 address inside an IPv4-mapped, IPv4-compatible, NAT64 (64:ff9b::/96) or 6to4 (2002::/16) address. */
function embeddedIpv4(groups: readonly number[]): number | undefined {
  const low = groups[6]! * 65_536 + groups[7]!;
  const zeros = (from: number, to: number): boolean => groups.slice(from, to).every((group) => group === 0);
  if (zeros(0, 5) && (groups[5] === 0xffff || groups[5] === 0)) return low;
  if (groups[0] === 0x64 && groups[1] === 0xff9b && zeros(2, 6)) return low;
  if (groups[0] === 0x2002) return groups[1]! * 65_536 + groups[2]!;
  return undefined;
}

/** The kind of the first range (as 16-bit groups, or 8-bit ones for IPv4) that holds `groups`. */
function rangeKind(groups: readonly number[], ranges: RangeTable): AddressKind | undefined {
  const width = groups.length === 8 ? 16 : 8;
  for (const [base, bits, kind] of ranges) {
    let remaining = bits;
    let inside = true;
    for (let index = 0; index < groups.length && remaining > 0; index++) {
      const take = Math.min(width, remaining);
      const mask = ((1 << take) - 1) << (width - take);
      if ((groups[index]! & mask) !== (base[index]! & mask)) {
        inside = false;
        break;
      }
      remaining -= take;
    }
    if (inside) return kind;
  }
  return undefined;
}

function ipv4Groups(value: number): number[] {
  return [value >>> 24, (value >>> 16) & 0xff, (value >>> 8) & 0xff, value & 0xff];
}

function formatIpv4(value: number): string {
  return ipv4Groups(value).join('.');
}

/** A dotted quad of four decimal parts (what a resolver returns) as a 32-bit number. */
function parseIpv4(text: string): number | undefined {
  const parts = text.split('.');
  if (parts.length !== 4 || !parts.every((part) => /^(0|[1-9]\d{0,2})$/.test(part) && Number(part) <= 255)) {
    return undefined;
  }
  return parts.reduce((value, part) => value * 256 + Number(part), 0);
}

/** An IPv6 literal (brackets and a zone allowed, a dotted-quad tail allowed) as eight 16-bit groups. */
function parseIpv6(text: string): number[] | undefined {
  let literal = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text;
  literal = literal.replace(/%.*$/, '').toLowerCase();
  if (!literal.includes(':')) return undefined;
  const tail: number[] = [];
  const lastColon = literal.lastIndexOf(':');
  const last = literal.slice(lastColon + 1);
  if (last.includes('.')) {
    const v4 = parseIpv4(last);
    if (v4 === undefined) return undefined;
    tail.push(v4 >>> 16, v4 & 0xffff);
    // `::ffff:1.2.3.4` → `::ffff`, `::1.2.3.4` → `::`, `1::1.2.3.4` → `1::`.
    literal = literal.slice(0, lastColon);
    if (literal.endsWith(':')) literal += ':';
  }
  const halves = literal.split('::');
  if (halves.length > 2) return undefined;
  const group = (part: string): number[] | undefined => {
    if (part === '') return [];
    const values = part.split(':').map((piece) => (/^[0-9a-f]{1,4}$/.test(piece) ? parseInt(piece, 16) : NaN));
    return values.some(Number.isNaN) ? undefined : values;
  };
  const head = group(halves[0]!);
  const rest = halves.length === 2 ? group(halves[1]!) : [];
  if (!head || !rest) return undefined;
  const known = head.length + rest.length + tail.length;
  if (halves.length === 1 ? known !== 8 : known > 7) return undefined;
  return [...head, ...new Array<number>(8 - known).fill(0), ...rest, ...tail];
}
