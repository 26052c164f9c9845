// Workflow-safe: MCP server settings in the `.mcp.json` shape, validated with zod, and the `${VAR}` expansion the worker
// applies when it connects. Pure: files are read and environments passed in by the caller.
import { z } from 'zod';
import { VARIABLE_REFERENCE, WORKSPACE_VARIABLE, variablesIn } from './mcp-variables.js';
import type { McpServerConfig, McpServers, McpStdioServer } from '../protocol/mcp.js';

/** Server names: what a `mcp__<server>__<tool>` tool name can carry, give or take the sanitising of other characters. */
const SERVER_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

const stringMap = z.record(z.string(), z.string());
const timeoutMs = z.number().int().min(1000).max(3_600_000);

const stdioServer = z
  .object({
    type: z.literal('stdio').optional(),
    command: z.string().min(1),
    args: z.array(z.string()).optional(),
    env: stringMap.optional(),
    cwd: z.string().min(1).optional(),
    timeoutMs: timeoutMs.optional(),
  })
  .strict();

const httpServer = z
  .object({
    type: z.literal('http'),
    url: z.string().min(1),
    headers: stringMap.optional(),
    timeoutMs: timeoutMs.optional(),
  })
  .strict();

/** A configuration that cannot be used, with a message naming the server and the field. */
export class McpConfigError extends Error {
  override name = 'McpConfigError';
}

/**
 * Validates the parsed JSON of a `.mcp.json` file (`source` names it in messages). A server is HTTP when its `type`
 * is `http` (or it has a `url` and no `command`), otherwise stdio; unknown fields are errors, so a typo is not ignored.
 */
export function parseMcpConfig(value: unknown, source: string): McpServers {
  if (!isRecord(value) || !isRecord(value.mcpServers)) {
    throw new McpConfigError(`${source}: expected an object with "mcpServers": { "<name>": { … } }.`);
  }
  const servers: McpServers = {};
  for (const [name, entry] of Object.entries(value.mcpServers)) {
    if (!SERVER_NAME.test(name)) {
      throw new McpConfigError(
        `${source}: server name "${name}" must be 1-64 letters, digits, "_", "-" or "." and start with a letter or digit.`,
      );
    }
    servers[name] = parseServer(name, entry, source);
  }
  return servers;
}

function parseServer(name: string, entry: unknown, source: string): McpServerConfig {
  const where = `${source}: mcpServers.${name}`;
  if (!isRecord(entry)) throw new McpConfigError(`${where}: expected an object with "command" or "url".`);
  if (entry.type === 'sse') {
    throw new McpConfigError(`${where}.type: the SSE transport is not supported; use "http" (Streamable HTTP).`);
  }
  if (entry.type !== undefined && entry.type !== 'stdio' && entry.type !== 'http') {
    throw new McpConfigError(`${where}.type: expected "stdio" or "http", got ${JSON.stringify(entry.type)}.`);
  }
  const http = entry.type === 'http' || (entry.type === undefined && 'url' in entry && !('command' in entry));
  const parsed = (http ? httpServer : stdioServer).safeParse(http ? { ...entry, type: 'http' } : entry);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const field = issue.path.map((part) => (typeof part === 'number' ? `[${part}]` : `.${String(part)}`)).join('');
    const message =
      issue.code === 'unrecognized_keys'
        ? `unknown field${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((key) => `"${key}"`).join(', ')} (${http ? 'an http server has type, url, headers, timeoutMs' : 'a stdio server has command, args, env, cwd, timeoutMs'})`
        : issue.message;
    throw new McpConfigError(`${where}${field}: ${message}.`);
  }
  return parsed.data as McpServerConfig;
}

/** What the expansion may read: the environment, and which names it must not hand out (with the reason). */
export interface ExpansionScope {
  env: Readonly<Record<string, string | undefined>>;
  /** The run's workspace, for `${workspaceFolder}`; without it (a check before any run) the reference is kept. */
  workspace?: string;
  refuse?: (name: string) => string | undefined;
}

/**
 * The server's settings with every `${VAR}` and `${VAR:-default}` in command, args, env, cwd, url and headers replaced
 * from `scope.env`. An unset variable without a default, or one the scope refuses, is an error naming server and field.
 */
export function expandMcpServer(name: string, config: McpServerConfig, scope: ExpansionScope): McpServerConfig {
  // A copy of the pattern: replace writes its lastIndex, and in a workflow the shared module's pattern is frozen.
  const expand = (text: string, field: string): string =>
    text.replace(new RegExp(VARIABLE_REFERENCE), (match: string, variable: string, fallback: string | undefined) => {
      if (variable === WORKSPACE_VARIABLE) return scope.workspace ?? match;
      const refusal = scope.refuse?.(variable);
      if (refusal !== undefined) throw new McpConfigError(`mcpServers.${name}.${field}: ${refusal}.`);
      const value = scope.env[variable];
      if (value !== undefined && value !== '') return value;
      if (fallback !== undefined) return fallback;
      throw new McpConfigError(`mcpServers.${name}.${field}: \${${variable}} is not set on the worker.`);
    });
  const expandMap = (map: Record<string, string> | undefined, field: string) =>
    map && Object.fromEntries(Object.entries(map).map(([key, value]) => [key, expand(value, `${field}.${key}`)]));
  if (config.type === 'http') {
    const headers = expandMap(config.headers, 'headers');
    return { ...config, url: expand(config.url, 'url'), ...(headers ? { headers } : {}) };
  }
  const env = expandMap(config.env, 'env');
  return {
    ...config,
    command: expand(config.command, 'command'),
    ...(config.args ? { args: config.args.map((arg, index) => expand(arg, `args[${index}]`)) } : {}),
    ...(env ? { env } : {}),
    ...(config.cwd !== undefined ? { cwd: expand(config.cwd, 'cwd') } : {}),
  };
}

/** The variable names a server's settings refer to, each once, in order of appearance. */
export function referencedVariables(config: McpServerConfig): string[] {
  const texts =
    config.type === 'http'
      ? [config.url, ...Object.values(config.headers ?? {})]
      : [config.command, ...(config.args ?? []), ...Object.values(config.env ?? {}), config.cwd ?? ''];
  return variablesIn(texts);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Which servers a run may bring (`DURABLE_AGENT_MCP_RUN_SERVERS` on the worker): `http` (the default), so that starting
 * a run never starts a program on a worker host; `all`, where a run's stdio server runs in the command sandbox, offline,
 * with the environment commands get; `none`.
 */
export type McpRunServerPolicy = 'all' | 'http' | 'none';

/** What a worker not told otherwise lets a run bring: Streamable HTTP servers only. */
export const DEFAULT_MCP_RUN_SERVER_POLICY: McpRunServerPolicy = 'http';

/** The policies, in the order `--help` and errors list them. */
export const MCP_RUN_SERVER_POLICIES: readonly McpRunServerPolicy[] = ['all', 'http', 'none'];

/** Why the worker does not start a run's server under `policy`, or undefined when it does. */
export function runServerRefusal(policy: McpRunServerPolicy, config: McpServerConfig): string | undefined {
  if (policy === 'all' || (policy === 'http' && config.type === 'http')) return undefined;
  return policy === 'none'
    ? "this worker takes no run's MCP servers (DURABLE_AGENT_MCP_RUN_SERVERS=none); add it to the worker's file instead"
    : "this worker starts no program for a run (DURABLE_AGENT_MCP_RUN_SERVERS=http, the default): add the server to the worker's file, or set DURABLE_AGENT_MCP_RUN_SERVERS=all on the worker to run a run's stdio servers in the command sandbox";
}

/**
 * Why a stdio server cannot be started as configured, or undefined. A relative `command` with a directory in it
 * (`./server.py`, `node_modules/.bin/x`) would be found in the server's working directory, so it needs a `cwd` that
 * names where; without one it is refused rather than looked up in a directory nobody chose.
 */
export function stdioCommandProblem(name: string, config: McpStdioServer): string | undefined {
  const relative = config.command.includes('/') && !config.command.startsWith('/');
  if (!relative || config.cwd !== undefined) return undefined;
  return (
    `mcpServers.${name}.command: "${config.command}" is a relative path and the server has no cwd; ` +
    `name the program absolutely (\${${WORKSPACE_VARIABLE}}/… for one in the run's workspace) or give the server a cwd`
  );
}
