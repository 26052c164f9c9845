// Node: which local user opened the other end of a loopback TCP connection, as the kernel records it. The client's
// socket is a row of /proc/net/tcp (or tcp6) whose local end is the connection's remote end and the other way round;
// its uid column is the user the socket was created by. Nothing a client sends can change it.
import fsp from 'node:fs/promises';
import net from 'node:net';

const TABLES = ['/proc/net/tcp', '/proc/net/tcp6'] as const;

/** Whether `address` (as node:net reports a socket's address) is a loopback address. */
export function isLoopbackAddress(address: string | undefined): boolean {
  if (address === undefined) return false;
  const plain = unmapped(address);
  return net.isIPv4(plain) ? plain.startsWith('127.') : plain === '::1';
}

/** `::ffff:127.0.0.1` is the IPv4 address it carries. */
function unmapped(address: string): string {
  return address.toLowerCase().startsWith('::ffff:') && net.isIPv4(address.slice(7)) ? address.slice(7) : address;
}

/** A /proc/net/tcp address (`0100007F:1F90`, each 32-bit word in host order, little-endian here) as `ip` and port. */
function parseEndpoint(field: string): { ip: string; port: number } | undefined {
  const [hex, portHex] = field.split(':');
  if (!hex || !portHex || (hex.length !== 8 && hex.length !== 32)) return undefined;
  const bytes = Buffer.alloc(hex.length / 2);
  for (let word = 0; word < hex.length / 8; word++)
    bytes.writeUInt32BE(Buffer.from(hex.slice(word * 8, word * 8 + 8), 'hex').readUInt32LE(0), word * 4);
  const ip =
    bytes.length === 4
      ? [...bytes].join('.')
      : unmapped(Array.from({ length: 8 }, (_, index) => bytes.readUInt16BE(index * 2).toString(16)).join(':'));
  return { ip: normalised(ip), port: Number.parseInt(portHex, 16) };
}

/** One spelling per address, so `::1` and `0:0:0:0:0:0:0:1` compare equal. */
function normalised(address: string): string {
  const plain = unmapped(address);
  if (net.isIPv4(plain)) return plain;
  const socket = new net.SocketAddress({ address: plain, family: 'ipv6' });
  return socket.address;
}

/**
 * The uid that owns the client end of `socket`, a connection this process accepted on loopback; undefined when the
 * kernel no longer lists it (the client closed it) or it is not a loopback connection.
 */
export async function loopbackPeerUid(socket: net.Socket): Promise<number | undefined> {
  const { remoteAddress, remotePort, localAddress, localPort } = socket;
  if (!isLoopbackAddress(remoteAddress) || remotePort === undefined || localPort === undefined) return undefined;
  const client = { ip: normalised(remoteAddress!), port: remotePort };
  const server = { ip: normalised(localAddress ?? ''), port: localPort };
  for (const table of TABLES) {
    const text = await fsp.readFile(table, 'utf8').catch(() => '');
    for (const line of text.split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      if (fields.length < 8) continue;
      const local = parseEndpoint(fields[1]!);
      const remote = parseEndpoint(fields[2]!);
      if (
        local?.port === client.port &&
        local.ip === client.ip &&
        remote?.port === server.port &&
        remote.ip === server.ip
      )
        return Number(fields[7]);
    }
  }
  return undefined;
}
