// Node: a `.mcp.json` file read and validated, for the worker (DURABLE_AGENT_MCP_CONFIG) and for `run --mcp-config`.
import { readFileSync } from 'node:fs';
import type { McpRunServerPolicy } from '../core/mcp-servers.js';
import type { McpServers } from '../protocol/mcp.js';
import {
  DEFAULT_MCP_RUN_SERVER_POLICY,
  MCP_RUN_SERVER_POLICIES,
  McpConfigError,
  parseMcpConfig,
} from '../core/mcp-servers.js';
import { MCP_CONFIG_VARIABLE } from '../core/mcp-variables.js';

/** The servers of a `.mcp.json` file; a missing file, bad JSON or a bad entry is an McpConfigError naming the file. */
export function readMcpConfigFile(file: string): McpServers {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new McpConfigError(`${file}: cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)}).`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new McpConfigError(`${file}: not valid JSON (${(error as Error).message}).`);
  }
  return parseMcpConfig(value, file);
}

/** The worker's MCP servers: those of the DURABLE_AGENT_MCP_CONFIG file, if set, then `servers` (which win on a name). */
export function workerMcpServers(
  env: Readonly<Record<string, string | undefined>>,
  servers: McpServers = {},
): McpServers {
  const file = env[MCP_CONFIG_VARIABLE]?.trim();
  return { ...(file ? readMcpConfigFile(file) : {}), ...servers };
}

/** The variable saying which MCP servers a run may bring (see McpRunServerPolicy). */
export const MCP_RUN_SERVERS_VARIABLE = 'DURABLE_AGENT_MCP_RUN_SERVERS';

/** The worker's policy for a run's own servers: `http` unless DURABLE_AGENT_MCP_RUN_SERVERS says otherwise. */
export function mcpRunServerPolicy(env: Readonly<Record<string, string | undefined>>): McpRunServerPolicy {
  const raw = env[MCP_RUN_SERVERS_VARIABLE]?.trim() ?? '';
  if (raw === '') return DEFAULT_MCP_RUN_SERVER_POLICY;
  const policy = MCP_RUN_SERVER_POLICIES.find((candidate) => candidate === raw);
  if (policy === undefined)
    throw new McpConfigError(`${MCP_RUN_SERVERS_VARIABLE}=${raw}: one of ${MCP_RUN_SERVER_POLICIES.join(', ')}.`);
  return policy;
}
