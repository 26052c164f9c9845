// Real MCP servers for end-to-end tests: @modelcontextprotocol/server-filesystem over stdio, server-everything over
// Streamable HTTP (started here on a free port and stopped by the test), and the SDK-built fixture server.
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import type { McpHttpServer, McpStdioServer } from '../../src/protocol/mcp.js';
import { findFreePort } from './ports.js';

const require = createRequire(import.meta.url);
const fixtureServerPath = fileURLToPath(new URL('../fixtures/mcp/fixture-server.ts', import.meta.url));

function packageEntry(name: string): string {
  return path.join(path.dirname(require.resolve(`${name}/package.json`)), 'dist', 'index.js');
}

/** server-filesystem, allowed to work in `directory`. */
export function filesystemServer(directory: string): McpStdioServer {
  return { command: process.execPath, args: [packageEntry('@modelcontextprotocol/server-filesystem'), directory] };
}

/** The fixture server of test/fixtures/mcp, logging its calls to `log`. */
export function fixtureServer(log: string): McpStdioServer {
  // tsx by its own location: a server starts in an empty directory (a run's in the sandbox's /tmp), with no node_modules.
  return {
    command: process.execPath,
    args: ['--import', import.meta.resolve('tsx'), fixtureServerPath],
    env: { FIXTURE_LOG: log },
  };
}

/** A running server-everything over Streamable HTTP. */
export interface HttpServer {
  config: McpHttpServer;
  close(): Promise<void>;
}

/** Starts server-everything's Streamable HTTP transport on a free port and waits until it listens. */
export async function startEverythingServer(): Promise<HttpServer> {
  const port = await findFreePort();
  const child = execa(process.execPath, [packageEntry('@modelcontextprotocol/server-everything'), 'streamableHttp'], {
    env: { PORT: String(port) },
    reject: false,
    all: true,
  });
  let output = '';
  await new Promise<void>((resolve, reject) => {
    child.all?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes(`listening on port ${port}`)) resolve();
    });
    void child.then(() => reject(new Error(`server-everything exited:\n${output}`)));
    setTimeout(() => reject(new Error(`server-everything did not listen within 30 s:\n${output}`)), 30_000).unref();
  });
  return {
    config: { type: 'http', url: `http://127.0.0.1:${port}/mcp` },
    close: async () => {
      child.kill('SIGTERM');
      await child;
    },
  };
}
