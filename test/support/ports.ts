// Ports a test hands to a server it starts later (a dev server's gRPC, Web UI, codec and HTTP ports, an MCP or NATS
// server). They come from below the system's ephemeral range, so a socket bound to port 0 in the meantime (a scripted
// model server, a client connection) can never take one; each vitest worker draws from its own slice, and no port is
// handed out twice in one process.
import { readFileSync } from 'node:fs';
import { HOST, isPortFree } from '../../src/dev-server/ports.js';

const SLICE = 1500;
const SLICES = 8;
const handedOut = new Set<number>();

/** The first port of the system's ephemeral range (Linux's default when it cannot be read). */
function ephemeralStart(): number {
  try {
    const [low] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/);
    return Number(low) || 32768;
  } catch {
    return 32768;
  }
}

/** This worker's slice of the ports below the ephemeral range: [start, start + SLICE). */
function slice(): number {
  const ephemeral = ephemeralStart();
  const lowest = ephemeral - SLICE * SLICES;
  if (lowest < 1024) throw new Error(`the ephemeral port range starts too low (${ephemeral}) for test ports`);
  const pool = Number(process.env.VITEST_POOL_ID ?? 0);
  return lowest + (pool % SLICES) * SLICE;
}

/** `count` distinct ports of HOST, free a moment ago and outside the ephemeral range. */
export async function findFreePorts(count: number): Promise<number[]> {
  const start = slice();
  const ports: number[] = [];
  let offset = Math.floor(Math.random() * SLICE);
  for (let tried = 0; ports.length < count; tried += 1, offset = (offset + 1) % SLICE) {
    if (tried === SLICE) throw new Error(`no ${count} free ports in ${start}–${start + SLICE - 1} on ${HOST}`);
    const port = start + offset;
    if (handedOut.has(port) || !(await isPortFree(port))) continue;
    handedOut.add(port);
    ports.push(port);
  }
  return ports;
}

/** One port as `findFreePorts` picks them. */
export async function findFreePort(): Promise<number> {
  const [port] = await findFreePorts(1);
  return port as number;
}
