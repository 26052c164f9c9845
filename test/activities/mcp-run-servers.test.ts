// Which MCP servers a run may bring: the worker's DURABLE_AGENT_MCP_RUN_SERVERS (Streamable HTTP only by default),
// applied by the listing activity before anything is started, and reported so the run says why a server's tools are
// missing. Where a worker allows a run's stdio servers, they run in the command sandbox: none of the worker's keys, no
// write outside the workspace.
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { access, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { mcpRunServerPolicy } from '../../src/mcp-config/config-file.js';
import { createMcpCatalogs } from '../../src/activities/mcp/catalog.js';
import { createMcpConnectionPool } from '../../src/activities/mcp/connections.js';
import { createListMcpTools } from '../../src/activities/mcp/list-tools.js';
import type { McpRunServerPolicy } from '../../src/core/mcp-servers.js';
import { McpConfigError } from '../../src/core/mcp-servers.js';
import type { McpListing } from '../../src/protocol/mcp.js';
import { createDirectoryStore } from '../../src/store/directory-store.js';
import { fixtureServer } from '../support/mcp-servers.js';
import { makeOutsideDirectory } from '../support/outside-directory.js';
import { requireBubblewrap } from '../support/sandbox.js';

// A program that would leave a file behind if it were ever started.
const marker = (dir: string) => ({ command: 'sh', args: ['-c', `touch ${join(dir, 'started')}`] });

async function listWith(policy: McpRunServerPolicy | undefined, dir: string) {
  const list = createListMcpTools({
    servers: {},
    connections: createMcpConnectionPool({}, { sandbox: { kind: 'off' }, dataDir: join(dir, 'data') }),
    catalogs: createMcpCatalogs(createDirectoryStore(join(dir, 'store'))),
    ...(policy ? { runServers: policy } : {}),
  });
  const listing = await list({
    workspace: dir,
    servers: { local: marker(dir), remote: { type: 'http', url: 'http://127.0.0.1:9/mcp' } },
  });
  if ('elsewhere' in listing) throw new Error('an ordinary listing answered elsewhere');
  return listing;
}

describe("a run's own MCP servers", () => {
  it.each([
    ['by default', undefined],
    ['http', 'http'],
  ] as const)(
    '%s: a stdio server is refused before it starts, with the reason; an HTTP server is tried',
    async (_label, policy) => {
      const dir = await mkdtemp(join(tmpdir(), 'mcp-policy-'));
      const listing = await listWith(policy, dir);
      expect(listing.tools).toEqual([]);
      expect(listing.unavailable.map((failure) => failure.server)).toEqual(['local', 'remote']);
      expect(listing.unavailable[0]!.error).toMatch(/DURABLE_AGENT_MCP_RUN_SERVERS=http/);
      expect(listing.unavailable[0]!.error).toMatch(/set DURABLE_AGENT_MCP_RUN_SERVERS=all on the worker/);
      // The HTTP one was tried (nothing listens on port 9) rather than refused.
      expect(listing.unavailable[1]!.error).not.toMatch(/DURABLE_AGENT_MCP_RUN_SERVERS/);
      await expect(access(join(dir, 'started'))).rejects.toThrow();
    },
  );

  it('none: every run server is refused', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'mcp-policy-'));
    const listing = await listWith('none', dir);
    expect(listing.unavailable.map((failure) => failure.error)).toEqual([
      expect.stringMatching(/=none/),
      expect.stringMatching(/=none/),
    ]);
  });

  it('the setting is all, http (the default) or none; anything else is an error naming the variable', () => {
    expect(mcpRunServerPolicy({})).toBe('http');
    expect(mcpRunServerPolicy({ DURABLE_AGENT_MCP_RUN_SERVERS: 'all' })).toBe('all');
    expect(mcpRunServerPolicy({ DURABLE_AGENT_MCP_RUN_SERVERS: 'http' })).toBe('http');
    expect(() => mcpRunServerPolicy({ DURABLE_AGENT_MCP_RUN_SERVERS: 'stdio' })).toThrow(McpConfigError);
    expect(() => mcpRunServerPolicy({ DURABLE_AGENT_MCP_RUN_SERVERS: 'stdio' })).toThrow(
      /DURABLE_AGENT_MCP_RUN_SERVERS=stdio: one of all, http, none/,
    );
  });

  it("all: a run's stdio server runs in the sandbox, with none of the worker's keys and no write outside", async (context) => {
    const sandbox = await requireBubblewrap(context);
    const scratch = await mkdtemp(join(tmpdir(), 'mcp-run-sandbox-'));
    const outside = await makeOutsideDirectory();
    try {
      const workspace = join(scratch, 'workspace');
      await mkdir(workspace);
      // The worker's home and another private directory: a run's `env` naming them on its PATH must not mount them.
      const home = join(scratch, 'worker-home');
      await mkdir(join(home, '.ssh', 'bin'), { recursive: true });
      await writeFile(join(home, '.ssh', 'id_ed25519'), 'PRIVATE KEY');
      await mkdir(join(scratch, 'private'));
      await writeFile(join(scratch, 'private', 'secret'), 'PRIVATE FILE');
      const fixture = fixtureServer(join(workspace, 'fixture.log'));
      const config = {
        ...fixture,
        env: { ...fixture.env, PATH: `${join(home, '.ssh', 'bin')}:${join(scratch, 'private')}:${process.env.PATH}` },
      };
      const secret = (name: string) => `${name}-${randomBytes(8).toString('hex')}`;
      const keys = {
        OPENAI_API_KEY: secret('openai'),
        ANTHROPIC_API_KEY: secret('anthropic'),
        AWS_SECRET_ACCESS_KEY: secret('aws'),
        TEMPORAL_API_KEY: secret('temporal'),
        DURABLE_AGENT_CODEC_KEY: secret('codec'),
      };
      const escape = join(outside, 'written-by-a-run-server');
      const child = await execa(
        process.execPath,
        [
          '--import',
          'tsx',
          fileURLToPath(new URL('../support/mcp-run-server-child.ts', import.meta.url)),
          JSON.stringify({
            workspace,
            dataDir: join(scratch, 'data'),
            config,
            calls: [
              { name: 'read_file', arguments: { path: join(home, '.ssh', 'id_ed25519') } },
              { name: 'read_file', arguments: { path: join(scratch, 'private', 'secret') } },
              { name: 'find_in_environments', arguments: { values: Object.values(keys) } },
              { name: 'write_file', arguments: { path: escape, text: 'escaped' } },
              { name: 'write_file', arguments: { path: join(workspace, 'inside.txt'), text: 'inside' } },
            ],
          }),
        ],
        {
          // The worker's own environment holds its keys; the operator even passes one to commands.
          env: {
            ...process.env,
            ...keys,
            HOME: home,
            DURABLE_AGENT_ENV_PASS: 'ANTHROPIC_API_KEY',
            DURABLE_AGENT_MCP_RUN_SERVERS: 'all',
            DURABLE_AGENT_SANDBOX: 'bubblewrap',
            DURABLE_AGENT_BWRAP_PATH: sandbox.executable,
          },
          reject: false,
        },
      );
      expect(child.exitCode, child.stderr).toBe(0);
      const { listing, answers } = JSON.parse(child.stdout) as { listing: McpListing; answers: string[] };
      expect(listing.unavailable).toEqual([]);
      expect(answers[0]).not.toContain('PRIVATE KEY');
      expect(answers[1]).not.toContain('PRIVATE FILE');
      answers.splice(0, 2);
      const found = JSON.parse(answers[0]!) as { own: string[]; processes: unknown[]; visible_processes: number };
      expect(found.own).toEqual([]);
      expect(found.processes).toEqual([]);
      // Its own pid namespace: bwrap and the server, not the worker's processes.
      expect(found.visible_processes).toBeLessThan(5);
      expect(answers[1]).not.toBe('written');
      expect(existsSync(escape)).toBe(false);
      expect(answers[2]).toBe('written');
      await expect(readFile(join(workspace, 'inside.txt'), 'utf8')).resolves.toBe('inside');
    } finally {
      await rm(outside, { recursive: true, force: true });
      await rm(scratch, { recursive: true, force: true });
    }
  }, 60_000);
});

describe('the listing asked as a local activity in the first workflow task', () => {
  const listing = (dir: string, servers: Record<string, ReturnType<typeof marker>>, hostToolQueue?: string) =>
    createListMcpTools({
      servers,
      connections: createMcpConnectionPool({}, { sandbox: { kind: 'off' }, dataDir: join(dir, 'data') }),
      catalogs: createMcpCatalogs(createDirectoryStore(join(dir, 'store'))),
      ...(hostToolQueue ? { hostToolQueue } : {}),
    });

  it('answers an empty listing at once when there is no server to connect to on the run host', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'mcp-local-'));
    const list = listing(dir, {}, 'agent@host-a');
    await expect(list({ workspace: dir, local: { onlyOnHost: 'agent@host-a' } })).resolves.toEqual({
      tools: [],
      unavailable: [],
    });
    await expect(list({ workspace: dir, local: {} })).resolves.toEqual({ tools: [], unavailable: [] });
  });

  it('leaves a worker with servers to the ordinary activity, starting none of them', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'mcp-local-'));
    await expect(listing(dir, { local: marker(dir) })({ workspace: dir, local: {} })).resolves.toEqual({
      elsewhere: true,
    });
    await expect(access(join(dir, 'started'))).rejects.toThrow();
  });

  it("leaves a run pinned to another host to that host's worker", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'mcp-local-'));
    const list = listing(dir, {}, 'agent@host-a');
    await expect(list({ workspace: dir, local: { onlyOnHost: 'agent@host-b' } })).resolves.toEqual({
      elsewhere: true,
    });
  });
});
