// Node: the worker's connections to MCP servers, one per server and settings (and, for stdio, working directory),
// made when first needed, made again after the server went away, closed after a while unused (a worker serving many
// workspaces would otherwise keep a stdio server per workspace for ever) and when the worker shuts down.
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
/** How much of a stdio server's stderr is kept to explain why it exited, and how many of its last lines are told. */
const STDERR_TAIL_CHARS = 2_000;
const STDERR_TAIL_LINES = 5;
/** A connection no call has used for this long is closed (a stdio server exits); the next call connects again. */
export const DEFAULT_MCP_IDLE_MS = 10 * 60_000;

/** A live connection and the tools its server offered when it was made. */
export interface McpConnection {
  server: string;
  client: Client;
  tools: ReadonlyMap<string, Tool>;
  /** The last lines of a stdio server's stderr on one line (`a | b`), to say why it failed ('' when there is none). */
  stderrTail(): string;
}

/** The connections of one worker process. */
export interface McpConnectionPool {
  /** The worker's environment: `${VAR}` values and what stdio servers inherit come from here. */
  readonly env: NodeJS.ProcessEnv;
  /**
   * The live connection for these settings, made (and its tools listed) if there is none. It is in use until
   * `release`: a connection in use is never closed for being idle.
   */
  connect(server: string, config: McpServerConfig, cwd: string): Promise<McpConnection>;
  /** Ends one use of a connection `connect` returned. */
  release(connection: McpConnection): void;
  /** Forgets a connection that failed (an HTTP server gone, a broken pipe), so the next call connects afresh. */
  discard(connection: McpConnection): void;
  closeAll(): Promise<void>;
}

/** One pooled connection: how many calls use it now, and when it was last used. */
interface PoolEntry {
  pending: Promise<McpConnection>;
  users: number;
  lastUsed: number;
}

/** Creates the pool; `env` is the worker's environment; connections unused for `idleMs` are closed. */
export function createMcpConnectionPool(
  env: NodeJS.ProcessEnv = process.env,
  idleMs: number = DEFAULT_MCP_IDLE_MS,
): McpConnectionPool {
  const entries = new Map<string, PoolEntry>();
  const keys = new WeakMap<McpConnection, string>();
  const forget = (key: string, connection: McpConnection): void => {
    const entry = entries.get(key);
    void entry?.pending.then(
      (current) => current === connection && entries.get(key) === entry && entries.delete(key),
      () => undefined,
    );
  };
  const close = (pending: Promise<McpConnection>): Promise<void> =>
    pending.then(
      (connection) => connection.client.close().catch(() => undefined),
      () => undefined,
    );
  const sweep = setInterval(
    () => {
      const now = Date.now();
      for (const [key, entry] of entries) {
        if (entry.users > 0 || now - entry.lastUsed < idleMs) continue;
        entries.delete(key);
        void close(entry.pending);
      }
    },
    Math.max(10, Math.min(idleMs / 2, 60_000)),
  );
  // The sweep never keeps a worker process alive on its own.
  sweep.unref();

  const connect = (server: string, config: McpServerConfig, cwd: string): Promise<McpConnection> => {
    const effectiveCwd = config.type === 'http' ? '' : (config.cwd ?? cwd);
    const key = `${server}\u0000${digest({ config, cwd: effectiveCwd })}`;
    const existing = entries.get(key);
    if (existing) {
      existing.users += 1;
      existing.lastUsed = Date.now();
      return existing.pending;
    }
    const made = open(server, config, effectiveCwd, env).then((connection) => {
      keys.set(connection, key);
      // A stdio server that exits closes its transport: the next call starts it again.
      connection.client.onclose = () => forget(key, connection);
      return connection;
    });
    const entry: PoolEntry = { pending: made, users: 1, lastUsed: Date.now() };
    entries.set(key, entry);
    made.catch(() => entries.get(key) === entry && entries.delete(key));
    return made;
  };

  return {
    env,
    connect,
    release: (connection) => {
      const entry = entries.get(keys.get(connection) ?? '');
      if (entry === undefined) return;
      entry.users = Math.max(0, entry.users - 1);
      entry.lastUsed = Date.now();
    },
    discard: (connection) => {
      const key = keys.get(connection);
      if (key !== undefined) forget(key, connection);
      void connection.client.close().catch(() => undefined);
    },
    closeAll: async () => {
      clearInterval(sweep);
      const open = [...entries.values()];
      entries.clear();
      await Promise.all(open.map((entry) => close(entry.pending)));
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
  const stderrTail = (): string => stderr.trim().split('\n').slice(-STDERR_TAIL_LINES).join(' | ');
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
    if (tail && error instanceof Error) error.message = `${error.message} (stderr: ${tail})`;
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
