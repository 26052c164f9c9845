// The embedded server's ports: defaults, the environment variables that move them, and whether one is free.
import net from 'node:net';
import type { DirectoryEnvironment } from '../host/state-dir.js';
import { DevServerError } from './errors.js';

/** The loopback address every embedded process listens on. */
export const HOST = '127.0.0.1';

/**
 * The one Host header the embedded server's HTTP API answers (`frontend.httpAllowedHosts`), which this CLI sends. A
 * browser always sends the name of the URL it fetches, and a `.invalid` name never resolves (RFC 6761): no web page,
 * rebound or not, can send it, so every request a page makes to the HTTP API is refused before it reaches Temporal.
 */
export const HTTP_API_HOST = 'durable-agent-cli.invalid';

/** Default gRPC port of the embedded server (`DURABLE_AGENT_DEV_PORT` overrides). */
export const DEFAULT_DEV_PORT = 7233;

/** Default Web UI port of the embedded server (`DURABLE_AGENT_DEV_UI_PORT` overrides). */
export const DEFAULT_DEV_UI_PORT = 8233;

/** Default port of the Web UI's codec endpoint (`DURABLE_AGENT_DEV_CODEC_PORT` overrides). */
export const DEFAULT_DEV_CODEC_PORT = 8234;

/** The port a variable sets, undefined when unset or empty; anything but 1-65535 is an error naming the variable. */
export function portFromEnv(env: DirectoryEnvironment, variable: string): number | undefined {
  const raw = env[variable];
  if (raw === undefined || raw === '') return undefined;
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 1 || port > 65_535)
    throw new DevServerError(`${variable}=${raw} is not a port number (1-65535).`);
  return port;
}

/** The codec endpoint's port: `DURABLE_AGENT_DEV_CODEC_PORT`, else the default. */
export function codecPortFromEnv(env: DirectoryEnvironment): number {
  return portFromEnv(env, 'DURABLE_AGENT_DEV_CODEC_PORT') ?? DEFAULT_DEV_CODEC_PORT;
}

/** Whether nothing listens on `port` of HOST (checked by binding it exclusively for a moment). */
export async function isPortFree(port: number): Promise<boolean> {
  return await new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen({ port, host: HOST, exclusive: true }, () => server.close(() => resolve(true)));
  });
}

/** A port of HOST that was free a moment ago (the system's pick for port 0). */
export async function freePort(): Promise<number> {
  return await new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen({ port: 0, host: HOST, exclusive: true }, () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** Whether something accepts connections on `host`:`port`. */
export async function isListening(host: string, port: number): Promise<boolean> {
  return await new Promise((resolve) => {
    const socket = net.connect({ port, host });
    const answer = (listening: boolean) => {
      socket.destroy();
      resolve(listening);
    };
    socket.setTimeout(1_000, () => answer(false));
    socket.once('connect', () => answer(true));
    socket.once('error', () => answer(false));
  });
}
