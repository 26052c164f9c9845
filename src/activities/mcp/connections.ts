// Node: the worker's connections to MCP servers, one per server and settings (and, for stdio, working directory),
// made when first needed, made again after the server went away, and closed when the worker shuts down.
import { createHash } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { envPassRefusal } from '../../core/env-pass.js';
import type { McpServerConfig, McpServers } from '../../core/mcp-servers.js';
import { McpConfigError, expandMcpServer } from '../../core/mcp-servers.js';
import { canonicalJson } from '../../tools/registry.js';
import { commandEnvironment } from '../executors/command-environment.js';
import type { McpCatalogServer } from './catalog.js';

/** How long connecting (start, initialize, first listing) may take. */
const CONNECT_TIMEOUT_MS = 60_000;
/** How much of a stdio server's stderr is kept to explain why it exited. */
const STDERR_TAIL_CHARS = 2_000;

/** A live connection and the tools its server offered when it was made. */
export interface McpConnection {
  server: string;
  client: Client;
  tools: ReadonlyMap<string, Tool>;
  /** The end of a stdio server's stderr, to say why it failed ('' when there is none). */
  stderrTail(): string;
}

/** The connections of one worker process. */
export interface McpConnectionPool {
  /** The worker's environment: `${VAR}` values and what stdio servers inherit come from here. */
  readonly env: NodeJS.ProcessEnv;
  /** The live connection for these settings, made (and its tools listed) if there is none. */
  connect(server: string, config: McpServerConfig, cwd: string): Promise<McpConnection>;
  /** Forgets a connection that failed (an HTTP server gone, a broken pipe), so the next call connects afresh. */
  discard(connection: McpConnection): void;
  closeAll(): Promise<void>;
}

/** Creates the pool; `env` is the worker's environment. */
export function createMcpConnectionPool(env: NodeJS.ProcessEnv = process.env): McpConnectionPool {
  const connections = new Map<string, Promise<McpConnection>>();
  const keys = new WeakMap<McpConnection, string>();
  const forget = (key: string, connection: McpConnection): void => {
    void connections.get(key)?.then(
      (current) => current === connection && connections.delete(key),
      () => undefined,
    );
  };

  const connect = (server: string, config: McpServerConfig, cwd: string): Promise<McpConnection> => {
    const effectiveCwd = config.type === 'http' ? '' : (config.cwd ?? cwd);
    const key = `${server}\u0000${digest({ config, cwd: effectiveCwd })}`;
    const existing = connections.get(key);
    if (existing) return existing;
    const made = open(server, config, effectiveCwd, env).then((connection) => {
      keys.set(connection, key);
      // A stdio server that exits closes its transport: the next call starts it again.
      connection.client.onclose = () => forget(key, connection);
      return connection;
    });
    connections.set(key, made);
    made.catch(() => connections.delete(key));
    return made;
  };

  return {
    env,
    connect,
    discard: (connection) => {
      const key = keys.get(connection);
      if (key !== undefined) forget(key, connection);
      void connection.client.close().catch(() => undefined);
    },
    closeAll: async () => {
      const open = [...connections.values()];
      connections.clear();
      await Promise.all(
        open.map(async (pending) => {
          const connection = await pending.catch(() => undefined);
          await connection?.client.close().catch(() => undefined);
        }),
      );
    },
  };
}

/**
 * A catalog server's settings, expanded for this worker: the worker's own from `workerServers` (any of its variables),
 * a run's from the catalog (never the worker's own settings or credentials, which `--env-pass` cannot have either).
 */
export function expandCatalogServer(
  name: string,
  entry: McpCatalogServer,
  workerServers: McpServers,
  env: NodeJS.ProcessEnv,
): McpServerConfig {
  if (entry.source === 'run') {
    return expandMcpServer(name, entry.config, {
      env,
      refuse: (variable) =>
        envPassRefusal(variable) === undefined
          ? undefined
          : `\${${variable}} is one of the worker's own settings or credentials, which a run's MCP servers cannot use`,
    });
  }
  const config = workerServers[name];
  if (!config) throw new McpConfigError(`this worker has no MCP server named '${name}' (it may have been removed)`);
  return expandMcpServer(name, config, { env });
}

async function open(server: string, config: McpServerConfig, cwd: string, env: NodeJS.ProcessEnv) {
  let stderr = '';
  const transport = transportFor(config, cwd, env, (chunk) => {
    stderr = (stderr + chunk).slice(-STDERR_TAIL_CHARS);
  });
  const client = new Client({ name: 'durable-agent', version: '0.1.0' });
  const stderrTail = (): string => stderr.trim();
  try {
    await client.connect(transport, { timeout: CONNECT_TIMEOUT_MS });
    const tools = new Map<string, Tool>();
    let cursor: string | undefined;
    do {
      const page = await client.listTools(cursor ? { cursor } : {}, { timeout: CONNECT_TIMEOUT_MS });
      for (const tool of page.tools) tools.set(tool.name, tool);
      cursor = page.nextCursor;
    } while (cursor);
    return { server, client, tools, stderrTail };
  } catch (error) {
    await client.close().catch(() => undefined);
    const tail = stderrTail();
    if (tail && error instanceof Error)
      error.message = `${error.message} (stderr: ${tail.split('\n').slice(-5).join(' | ')})`;
    throw error;
  }
}

function transportFor(
  config: McpServerConfig,
  cwd: string,
  env: NodeJS.ProcessEnv,
  onStderr: (chunk: string) => void,
): Transport {
  if (config.type === 'http') {
    return new StreamableHTTPClientTransport(new URL(config.url), {
      ...(config.headers ? { requestInit: { headers: config.headers } } : {}),
    });
  }
  // What commands get (the allowlist and the operator's DURABLE_AGENT_ENV_PASS names), the worker's HOME (a server is
  // the operator's program, with its caches where they usually are), then the server's own configured variables.
  const environment = commandEnvironment(env, {
    overrides: { ...(env.HOME ? { HOME: env.HOME } : {}), ...(config.env ?? {}) },
  });
  const transport = new StdioClientTransport({
    command: config.command,
    args: config.args ?? [],
    env: environment,
    cwd,
    stderr: 'pipe',
  });
  transport.stderr?.on('data', (chunk: Buffer) => onStderr(chunk.toString()));
  return transport;
}

function digest(value: unknown): string {
  return createHash('sha256').update(canonicalJson(value)).digest('hex');
}
