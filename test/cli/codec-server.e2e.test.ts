// `durable-agent codec-server`, run as a user runs it beside a cluster's Web UI.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { refString } from '../../src/protocol/content-key.js';
import { createDirectoryStore } from '../../src/store/directory-store.js';
import { defaultUiOrigins, uiOrigins } from '../../src/dev-server/ui-origins.js';
import { durableAgentBin } from '../support/cli.js';
import { findFreePorts } from '../support/ports.js';

const base64 = (text: string) => Buffer.from(text).toString('base64');

describe('codec-server command', () => {
  let storeDir: string;

  beforeAll(async () => {
    storeDir = await fs.mkdtemp(path.join(os.tmpdir(), 'codec-cli-store-'));
  });

  afterAll(async () => {
    await fs.rm(storeDir, { recursive: true, force: true });
  });

  it('serves the workers’ store to the UI origin it is given, until SIGTERM', async () => {
    const key = await createDirectoryStore(storeDir).put('{"role":"user","content":"hello"}');
    const [port] = (await findFreePorts(1)) as [number];
    const child = execa(
      process.execPath,
      [durableAgentBin, 'codec-server', '--port', String(port), '--cors-origin', 'http://localhost:8080/'],
      { env: { DURABLE_AGENT_STORE_DIR: storeDir }, extendEnv: false, reject: false, stdin: 'ignore' },
    );
    try {
      await new Promise<void>((resolve, reject) => {
        child.stderr.on('data', (chunk: Buffer) => {
          if (chunk.toString().includes('codec endpoint: ')) resolve();
        });
        void child.then((result) => reject(new Error(`exited early: ${result.stderr}`)));
      });
      const response = await fetch(`http://127.0.0.1:${port}/decode`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'X-Namespace': 'default', Origin: 'http://localhost:8080' },
        body: JSON.stringify({
          payloads: [
            { metadata: { encoding: base64('json/plain') }, data: base64(JSON.stringify({ message: refString(key) })) },
          ],
        }),
      });
      expect(response.headers.get('access-control-allow-origin')).toBe('http://localhost:8080');
      const { payloads } = (await response.json()) as { payloads: { data: string }[] };
      expect(JSON.parse(Buffer.from(payloads[0]!.data, 'base64').toString())).toEqual({
        message: { role: 'user', content: 'hello' },
      });
    } finally {
      child.kill('SIGTERM');
    }
    const result = await child;
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stderr).toContain(`codec endpoint: http://127.0.0.1:${port} store=directory ${storeDir}`);
    expect(result.stderr).toContain('cors-origins=http://localhost:8080');
  });

  it('rejects a bad port or origin as a usage error, and has help', async () => {
    const run = (args: string[]) =>
      execa(process.execPath, [durableAgentBin, 'codec-server', ...args], { reject: false, stdin: 'ignore' });
    const badPort = await run(['--port', 'eighty']);
    expect(badPort.exitCode).toBe(2);
    expect(badPort.stderr).toContain('--port eighty is not a port number');
    const badOrigin = await run(['--port', '0', '--cors-origin', 'localhost']);
    expect(badOrigin.exitCode).toBe(2);
    expect(badOrigin.stderr).toContain('--cors-origin localhost is not a URL');
    const anyOrigin = await run(['--port', '0', '--cors-origin', '*']);
    expect(anyOrigin.exitCode).toBe(2);
    expect(anyOrigin.stderr).toContain('--cors-origin * would let any web page read the store');
    const everywhere = await run(['--port', '0', '--host', '0.0.0.0']);
    expect(everywhere.exitCode).toBe(2);
    expect(everywhere.stderr).toContain('--host 0.0.0.0 needs --allowed-host NAME:PORT');
    const badHost = await run(['--port', '0', '--allowed-host', 'http://localhost:8234']);
    expect(badHost.exitCode).toBe(2);
    expect(badHost.stderr).toContain('--allowed-host http://localhost:8234 is not NAME:PORT');
    const help = await run(['--help']);
    expect(help.exitCode).toBe(0);
    expect(help.stdout).toMatch(/^Usage: durable-agent codec-server/);
  });
});

describe('Web UI origins', () => {
  it('allows the UI’s origin exactly as given, loopback too, and a cluster UI as configured', () => {
    expect(uiOrigins('http://127.0.0.1:8233')).toEqual(['http://127.0.0.1:8233']);
    expect(uiOrigins('http://localhost:8080/namespaces')).toEqual(['http://localhost:8080']);
    expect(uiOrigins('https://temporal.example.com')).toEqual(['https://temporal.example.com']);
    expect(defaultUiOrigins({})).toEqual(['http://127.0.0.1:8233']);
    expect(defaultUiOrigins({ DURABLE_AGENT_DEV_UI_PORT: '9000' })).toEqual(['http://127.0.0.1:9000']);
    expect(defaultUiOrigins({ TEMPORAL_UI_URL: 'https://ui.internal/' })).toEqual(['https://ui.internal']);
  });
});
