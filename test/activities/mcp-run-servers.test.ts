// Which MCP servers a run may bring: the worker's DURABLE_AGENT_MCP_RUN_SERVERS, applied by the listing activity before
// anything is started, and reported so the run says why a server's tools are missing.
import { access, mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { mcpRunServerPolicy } from '../../src/activities/mcp/config-file.js';
import { createMcpCatalogs } from '../../src/activities/mcp/catalog.js';
import { createMcpConnectionPool } from '../../src/activities/mcp/connections.js';
import { createListMcpTools } from '../../src/activities/mcp/list-tools.js';
import type { McpRunServerPolicy } from '../../src/core/mcp-servers.js';
import { McpConfigError } from '../../src/core/mcp-servers.js';
import { createDirectoryStore } from '../../src/store/directory-store.js';

// A program that would leave a file behind if it were ever started.
const marker = (dir: string) => ({ command: 'sh', args: ['-c', `touch ${join(dir, 'started')}`] });

async function listWith(policy: McpRunServerPolicy, dir: string) {
  const list = createListMcpTools({
    servers: {},
    connections: createMcpConnectionPool({}),
    catalogs: createMcpCatalogs(createDirectoryStore(join(dir, 'store'))),
    runServers: policy,
  });
  return list({
    workspace: dir,
    servers: { local: marker(dir), remote: { type: 'http', url: 'http://127.0.0.1:9/mcp' } },
  });
}

describe("a run's own MCP servers", () => {
  it('http: a stdio server is refused before it starts, with the reason; an HTTP server is tried', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'mcp-policy-'));
    const listing = await listWith('http', dir);
    expect(listing.tools).toEqual([]);
    expect(listing.unavailable.map((failure) => failure.server)).toEqual(['local', 'remote']);
    expect(listing.unavailable[0]!.error).toMatch(/DURABLE_AGENT_MCP_RUN_SERVERS=http/);
    // The HTTP one was tried (nothing listens on port 9) rather than refused.
    expect(listing.unavailable[1]!.error).not.toMatch(/DURABLE_AGENT_MCP_RUN_SERVERS/);
    await expect(access(join(dir, 'started'))).rejects.toThrow();
  });

  it('none: every run server is refused', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'mcp-policy-'));
    const listing = await listWith('none', dir);
    expect(listing.unavailable.map((failure) => failure.error)).toEqual([
      expect.stringMatching(/=none/),
      expect.stringMatching(/=none/),
    ]);
  });

  it('the setting is all, http or none; anything else is an error naming the variable', () => {
    expect(mcpRunServerPolicy({})).toBe('all');
    expect(mcpRunServerPolicy({ DURABLE_AGENT_MCP_RUN_SERVERS: 'http' })).toBe('http');
    expect(() => mcpRunServerPolicy({ DURABLE_AGENT_MCP_RUN_SERVERS: 'stdio' })).toThrow(McpConfigError);
    expect(() => mcpRunServerPolicy({ DURABLE_AGENT_MCP_RUN_SERVERS: 'stdio' })).toThrow(
      /DURABLE_AGENT_MCP_RUN_SERVERS=stdio: one of all, http, none/,
    );
  });
});
