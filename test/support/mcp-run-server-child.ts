// A stand-in worker process for the tests of a run's stdio MCP servers: its own environment holds the worker's keys (as
// a real worker's does, where a server outside the sandbox could read them from /proc/<ppid>/environ). It lists the
// run's servers as the worker would under its DURABLE_AGENT_MCP_RUN_SERVERS, calls the given tools of the one named
// `probe`, and prints the listing and the answers as one JSON line.
//
// Usage: node --import tsx test/support/mcp-run-server-child.ts '{"workspace", "dataDir", "config", "calls"}'
import path from 'node:path';
import { mcpRunServerPolicy } from '../../src/mcp-config/config-file.js';
import { createMcpCatalogs } from '../../src/activities/mcp/catalog.js';
import { createMcpConnectionPool, expandCatalogServer } from '../../src/activities/mcp/connections.js';
import { createListMcpTools } from '../../src/activities/mcp/list-tools.js';
import { resolveCommandSandbox } from '../../src/activities/sandbox/command-sandbox.js';
import { realWorkspaceRoot } from '../../src/activities/workspace.js';
import type { McpServerConfig } from '../../src/protocol/mcp.js';
import { createDirectoryStore } from '../../src/store/directory-store.js';

interface ChildInput {
  workspace: string;
  dataDir: string;
  config: McpServerConfig;
  calls: { name: string; arguments: Record<string, unknown> }[];
}

const input = JSON.parse(process.argv[2]!) as ChildInput;
const sandbox = await resolveCommandSandbox(process.env);
const connections = createMcpConnectionPool(process.env, { sandbox, dataDir: input.dataDir });
try {
  const list = createListMcpTools({
    servers: {},
    connections,
    catalogs: createMcpCatalogs(createDirectoryStore(path.join(input.dataDir, 'store'))),
    runServers: mcpRunServerPolicy(process.env),
  });
  const listing = await list({ workspace: input.workspace, servers: { probe: input.config } });
  if ('elsewhere' in listing) throw new Error('an ordinary listing answered elsewhere');
  const answers: string[] = [];
  if (listing.tools.length > 0) {
    const root = await realWorkspaceRoot(input.workspace);
    const config = expandCatalogServer('probe', { source: 'run', config: input.config }, {}, process.env, root);
    const connection = await connections.connect('probe', config, { workspace: root, source: 'run' });
    for (const call of input.calls) {
      const result = (await connection.client.callTool(call)) as { content: { text: string }[] };
      answers.push(result.content[0]!.text);
    }
    connections.release(connection);
  }
  process.stdout.write(`${JSON.stringify({ listing, answers })}\n`);
} finally {
  await connections.closeAll();
}
