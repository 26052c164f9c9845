// The operator's stdio MCP servers run as the worker, outside the command sandbox: none of them may load what the model
// wrote into the workspace. Each test plants a same-named program or module in the workspace, as an auto-allowed
// WriteFile could, and starts the server as the operator configured it: the planted one never runs.
import { existsSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { McpConnectionPool } from '../../src/activities/mcp/connections.js';
import { createMcpConnectionPool, expandCatalogServer } from '../../src/activities/mcp/connections.js';
import type { McpStdioServer } from '../../src/protocol/mcp.js';
import { McpConfigError } from '../../src/core/mcp-servers.js';
import { fixtureServer } from '../support/mcp-servers.js';

const realModuleDirectory = fileURLToPath(new URL('../fixtures/mcp/python', import.meta.url));

let scratch: string;
let workspace: string;
let dataDir: string;
let marker: string;
let pool: McpConnectionPool | undefined;

beforeEach(async () => {
  scratch = await realpath(await mkdtemp(path.join(tmpdir(), 'mcp-launch-')));
  workspace = path.join(scratch, 'workspace');
  dataDir = path.join(scratch, 'worker-data');
  marker = path.join(scratch, 'planted-code-ran');
  await mkdir(workspace);
});
afterEach(async () => {
  await pool?.closeAll();
  pool = undefined;
  await rm(scratch, { recursive: true, force: true });
});

/** A program that leaves the marker behind and exits: what the model planted. */
const plantedScript = () => `#!/bin/sh\ntouch '${marker}'\n`;

/** Connects to the worker's own server `config` (with `${VAR}` expanded as the worker does) for the workspace. */
async function connect(config: McpStdioServer, env: NodeJS.ProcessEnv = process.env) {
  pool = createMcpConnectionPool(env, { sandbox: { kind: 'off' }, dataDir });
  const expanded = expandCatalogServer('probe', { source: 'worker' }, { probe: config }, env, workspace);
  return pool.connect('probe', expanded, { workspace, source: 'worker' });
}

const text = (result: unknown) => (result as { content: { text: string }[] }).content[0]!.text;

describe("the operator's stdio MCP servers", () => {
  it('start in an empty directory of the worker, not the workspace; `cwd: ${workspaceFolder}` is honoured', async () => {
    const server = await connect(fixtureServer(path.join(scratch, 'log')));
    const cwd = text(await server.client.callTool({ name: 'where', arguments: {} }));
    expect(path.dirname(cwd)).toBe(path.join(dataDir, 'mcp'));
    await pool!.closeAll();
    // The operator's explicit cwd, as written.
    const named = await connect({ ...fixtureServer(path.join(scratch, 'log')), cwd: '${workspaceFolder}' });
    expect(text(await named.client.callTool({ name: 'where', arguments: {} }))).toBe(workspace);
  });

  it('`python3 -m <module>` imports the real module, never a same-named one planted in the workspace', async () => {
    await writeFile(
      path.join(workspace, 'mcp_probe_server.py'),
      `open(${JSON.stringify(marker)}, "w").write("planted")\nraise SystemExit(1)\n`,
    );
    const server = await connect({
      command: 'python3',
      args: ['-m', 'mcp_probe_server'],
      env: { PYTHONPATH: realModuleDirectory, PYTHONDONTWRITEBYTECODE: '1' },
    });
    const file = text(await server.client.callTool({ name: 'which', arguments: {} }));
    expect(file).toBe(path.join(realModuleDirectory, 'mcp_probe_server.py'));
    expect(existsSync(marker)).toBe(false);
  });

  it("`npx <bin>` does not resolve the workspace's node_modules", async () => {
    const bin = path.join(workspace, 'node_modules', '.bin');
    await mkdir(bin, { recursive: true });
    await writeFile(path.join(bin, 'mcp-probe-planted'), plantedScript());
    await chmod(path.join(bin, 'mcp-probe-planted'), 0o755);
    await writeFile(path.join(workspace, 'package.json'), '{"name":"w"}');
    // Offline: the real package is not installed anywhere, so npx fails without asking the registry.
    const npmCache = path.join(scratch, 'npm-cache');
    await expect(
      connect({
        command: 'npx',
        args: ['--no', 'mcp-probe-planted'],
        env: { npm_config_offline: 'true', npm_config_cache: npmCache },
      }),
    ).rejects.toThrow();
    expect(existsSync(marker)).toBe(false);
  });

  it("a PATH entry of the worker's inside the workspace is dropped before the program is looked up", async () => {
    const bin = path.join(workspace, 'bin');
    await mkdir(bin);
    await writeFile(path.join(bin, 'mcp-probe-planted'), plantedScript());
    await chmod(path.join(bin, 'mcp-probe-planted'), 0o755);
    // Named directly, relatively, and through a link from outside the workspace.
    const link = path.join(scratch, 'tools');
    await symlink(bin, link);
    for (const entry of [bin, 'bin', link]) {
      const env = { ...process.env, PATH: `${entry}:${process.env.PATH ?? ''}` };
      await expect(
        connect({ command: 'mcp-probe-planted', cwd: entry === 'bin' ? workspace : undefined }, env),
      ).rejects.toThrow(/ENOENT/);
      await pool!.closeAll();
    }
    expect(existsSync(marker)).toBe(false);
  });

  it('a relative command is refused without a cwd, and found in the cwd the operator named', async () => {
    await writeFile(path.join(workspace, 'server.sh'), plantedScript());
    await chmod(path.join(workspace, 'server.sh'), 0o755);
    await expect(connect({ command: './server.sh' })).rejects.toThrow(McpConfigError);
    await expect(connect({ command: './server.sh' })).rejects.toThrow(/relative path and the server has no cwd/);
    expect(existsSync(marker)).toBe(false);
    // Named explicitly, it is what the operator asked for.
    await expect(connect({ command: './server.sh', cwd: '${workspaceFolder}' })).rejects.toThrow();
    expect(existsSync(marker)).toBe(true);
  });

  it('refuses to start in its default directory when the worker keeps its data inside the workspace', async () => {
    dataDir = path.join(workspace, '.local', 'state', 'worker');
    await expect(connect(fixtureServer(path.join(scratch, 'log')))).rejects.toThrow(
      /data directory .* is inside the run's workspace/,
    );
  });
});
