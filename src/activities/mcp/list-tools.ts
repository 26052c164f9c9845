// Node: the `listMcpTools` activity, run once per task on the worker that owns the workspace: it connects to the
// worker's and the run's MCP servers, names their tools for the registry, stores the catalog once and hands the
// workflow the descriptors and the catalog's key. A server that cannot be listed is reported, not fatal.
import type { McpRunServerPolicy } from '../../core/mcp-servers.js';
import type { McpServers } from '../../protocol/mcp.js';
import { DEFAULT_MCP_RUN_SERVER_POLICY, runServerRefusal } from '../../core/mcp-servers.js';
import type { McpListing, McpServerFailure } from '../../protocol/mcp.js';
import { MCP_HINT_KEYS, mcpToolNames } from '../../tools/mcp-tool.js';
import type { McpToolAnnotations, McpToolDescriptor } from '../../protocol/mcp.js';
import { realWorkspaceRoot } from '../workspace.js';
import { compileToolSchema } from './arguments.js';
import type { McpCatalogs } from './catalog.js';
import { taskServers } from './catalog.js';
import type { McpConnectionPool } from './connections.js';
import { expandCatalogServer } from './connections.js';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { ListMcpToolsInput } from '../../protocol/mcp.js';
import type { ElsewhereResult } from '../../protocol/tool-activity.js';

/** Creates the `listMcpTools` activity over the worker's servers and connections. */
export function createListMcpTools(deps: {
  servers: McpServers;
  connections: McpConnectionPool;
  catalogs: McpCatalogs;
  /** Which servers a run may bring; default `http`. */
  runServers?: McpRunServerPolicy;
  /** The tool queue of the workspaces this worker owns (its host), if any. */
  hostToolQueue?: string;
}): (input: ListMcpToolsInput) => Promise<McpListing | ElsewhereResult> {
  return async (input) => {
    const { local } = input;
    if (local?.onlyOnHost !== undefined && local.onlyOnHost !== deps.hostToolQueue) return { elsewhere: true };
    const unavailable: McpServerFailure[] = [];
    const allowed: McpServers = {};
    for (const [server, config] of Object.entries(input.servers ?? {})) {
      const refusal = runServerRefusal(deps.runServers ?? DEFAULT_MCP_RUN_SERVER_POLICY, config);
      if (refusal === undefined) allowed[server] = config;
      else unavailable.push({ server, error: refusal });
    }
    const servers = taskServers(deps.servers, allowed);
    const names = Object.keys(servers).sort();
    if (names.length === 0) return { tools: [], unavailable };
    // Connecting may start a server: not in a workflow task.
    if (local) return { elsewhere: true };
    const root = await realWorkspaceRoot(input.workspace);
    const listed = await Promise.all(
      names.map(async (server) => {
        try {
          const entry = servers[server]!;
          const config = expandCatalogServer(server, entry, deps.servers, deps.connections.env, root);
          const connection = await deps.connections.connect(server, config, { workspace: root, source: entry.source });
          deps.connections.release(connection);
          return { server, timeoutMs: config.timeoutMs, tools: [...connection.tools.values()] };
        } catch (error) {
          unavailable.push({ server, error: error instanceof Error ? error.message : String(error) });
          return { server, timeoutMs: undefined, tools: [] as Tool[] };
        }
      }),
    );
    const usable = listed.flatMap(({ server, timeoutMs, tools }) =>
      tools.flatMap((tool) => {
        const problem = schemaProblem(tool);
        if (problem) {
          unavailable.push({ server, error: `its tool '${tool.name}' is left out: ${problem}` });
          return [];
        }
        return [{ server, timeoutMs, tool }];
      }),
    );
    const registryNames = mcpToolNames(usable.map(({ server, tool }) => ({ server, tool: tool.name })));
    const tools: McpToolDescriptor[] = usable.map(({ server, timeoutMs, tool }, index) => {
      const annotations = hintsOf(tool);
      return {
        name: registryNames[index]!,
        server,
        tool: tool.name,
        description: tool.description ?? tool.title ?? '',
        inputSchema: tool.inputSchema as Record<string, unknown>,
        ...(annotations ? { annotations } : {}),
        ...(timeoutMs !== undefined ? { timeoutMs } : {}),
      };
    });
    unavailable.sort((left, right) => (left.server < right.server ? -1 : left.server > right.server ? 1 : 0));
    if (tools.length === 0) return { tools, unavailable };
    const catalog = await deps.catalogs.put({ servers, tools });
    return { catalog, tools, unavailable };
  };
}

/** Why a tool's schema cannot be offered (it must be an object schema ajv can compile), or undefined. */
function schemaProblem(tool: Tool): string | undefined {
  if (tool.inputSchema?.type !== 'object') {
    return 'its input schema is not an object schema';
  }
  try {
    compileToolSchema(tool.inputSchema as Record<string, unknown>);
    return undefined;
  } catch (error) {
    return `its input schema is not valid JSON Schema (${error instanceof Error ? error.message : String(error)})`;
  }
}

/** The tool's behaviour hints, those that are booleans; undefined when it has none. */
function hintsOf(tool: Tool): McpToolAnnotations | undefined {
  const source = tool.annotations ?? {};
  const hints: McpToolAnnotations = {};
  for (const key of MCP_HINT_KEYS) {
    if (typeof source[key] === 'boolean') hints[key] = source[key];
  }
  return Object.keys(hints).length > 0 ? hints : undefined;
}
