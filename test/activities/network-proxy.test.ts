// One command's network proxy on its own: a refusal is a 403 that names the host and why and is recorded once; an
// approved host is reached through CONNECT and absolute URLs; closing it cuts open tunnels and removes its socket.
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { existsSync, statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openCommandNetwork } from '../../src/activities/sandbox/command-network.js';
import { ownAddress } from '../support/network-scenario.js';

let scratch: string;
let server: http.Server;
let port: number;

beforeEach(async () => {
  scratch = await mkdtemp(path.join(os.tmpdir(), 'network-proxy-'));
  server = http.createServer((request, response) => response.end(`served ${request.url}`));
  await new Promise<void>((resolve) => server.listen(0, ownAddress(), resolve));
  port = (server.address() as AddressInfo).port;
});

afterEach(async () => {
  server.close();
  await rm(scratch, { recursive: true, force: true });
});

/** One raw exchange over the proxy's socket: what it answered before closing, or the first `bytes` of it. */
async function exchange(socketPath: string, request: string, bytes = Infinity): Promise<string> {
  return await new Promise((resolve, reject) => {
    const socket = net.connect(socketPath, () => socket.write(request));
    let answer = '';
    socket.on('data', (chunk: Buffer) => {
      answer += chunk.toString();
      if (answer.length >= bytes) socket.destroy();
    });
    socket.on('close', () => resolve(answer));
    socket.on('error', reject);
  });
}

describe('the network proxy of one command', () => {
  it('answers a refusal with a 403 naming the host and why, records it once, and reaches an approved host', async () => {
    const own = ownAddress();
    const network = await openCommandNetwork({ controlPlane: [], socketParent: scratch }, [own]);
    try {
      const socket = network.sandbox.proxySocket;
      expect(statSync(path.dirname(socket)).mode & 0o777).toBe(0o700);
      expect(statSync(socket).mode & 0o777).toBe(0o600);
      const refused = await exchange(socket, 'CONNECT evil.example:443 HTTP/1.1\r\nhost: evil.example:443\r\n\r\n');
      expect(refused).toMatch(/^HTTP\/1\.1 403 Forbidden\r\n/);
      expect(refused).toContain(
        `The sandbox's network proxy refused evil.example:443: not one of the hosts this command was approved for (${own}).`,
      );
      await exchange(socket, 'CONNECT evil.example:443 HTTP/1.1\r\n\r\n');
      expect(network.refusals()).toEqual([
        { host: 'evil.example', port: 443, reason: `not one of the hosts this command was approved for (${own})` },
      ]);
      const plain = await exchange(
        socket,
        `GET http://${own}:${port}/plain HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n`,
      );
      expect(plain).toMatch(/^HTTP\/1\.1 200 OK/);
      expect(plain).toContain('served /plain');
      const tunnelled = await exchange(
        socket,
        `CONNECT ${own}:${port} HTTP/1.1\r\n\r\nGET /tunnel HTTP/1.1\r\nhost: ${own}\r\nconnection: close\r\n\r\n`,
      );
      expect(tunnelled).toMatch(/^HTTP\/1\.1 200 Connection Established\r\n\r\nHTTP\/1\.1 200 OK/);
      expect(tunnelled).toContain('served /tunnel');
      const originForm = await exchange(socket, 'GET / HTTP/1.1\r\nhost: x\r\n\r\n');
      expect(originForm).toMatch(/^HTTP\/1\.1 400 /);
    } finally {
      await network.close();
    }
  });

  it('closing cuts the tunnels still open and leaves no socket behind', async () => {
    const own = ownAddress();
    const network = await openCommandNetwork({ controlPlane: [], socketParent: scratch }, [own]);
    const socketPath = network.sandbox.proxySocket;
    const tunnel = net.connect(socketPath, () => tunnel.write(`CONNECT ${own}:${port} HTTP/1.1\r\n\r\n`));
    await new Promise((resolve) => tunnel.once('data', resolve));
    const cut = new Promise((resolve) => tunnel.once('close', resolve));
    await network.close();
    await cut;
    expect(existsSync(path.dirname(socketPath))).toBe(false);
    await expect(exchange(socketPath, 'CONNECT x:1 HTTP/1.1\r\n\r\n')).rejects.toMatchObject({ code: 'ENOENT' });
  });
});
