// Node: the worker's connections to MCP servers, one per server, source and settings (and, for stdio, workspace), made
// when first needed, made again after the server went away, closed after a while unused (a worker serving many
// workspaces would otherwise keep a stdio server per workspace for ever) and when the worker shuts down. How a stdio
// server is started, and where, is stdio-launch.ts.
import { createHash } from 'node:crypto';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { envPassRefusal } from '../../core/env-pass.js';
import type { McpServerConfig, McpServers } from '../../protocol/mcp.js';
import { McpConfigError, expandMcpServer } from '../../core/mcp-servers.js';
import { canonicalJson } from '../../protocol/canonical-json.js';
import type { CommandSandbox } from '../sandbox/command-sandbox.js';
import type { McpCatalogServer } from './catalog.js';
import type { McpServerSource } from './stdio-launch.js';
import { stdioLaunch } from './stdio-launch.js';

/** How long connecting (start, initialize, first listing) may take. */
const CONNECT_TIMEOUT_MS = 60_000;
/** How much of a stdio server's stderr is kept to explain why it exited, and how many of its last lines are told. */
const STDERR_TAIL_CHARS = 2_000;
const STDERR_TAIL_LINES = 5;
/** A connection no call has used for this long is closed (a stdio server exits); the next call connects again. */
export const DEFAULT_MCP_IDLE_MS = 10 * 60_000;

// The SDK's client is loaded with the first connection: a worker whose runs use no MCP server never pays for it.
const importClientSdk = () =>
  Promise.all([
    import('@modelcontextprotocol/sdk/client/index.js'),
    import('@modelcontextprotocol/sdk/client/stdio.js'),
    import('@modelcontextprotocol/sdk/client/streamableHttp.js'),
  ]);
let clientSdk: ReturnType<typeof importClientSdk> | undefined;
const loadClientSdk = () => (clientSdk ??= importClientSdk());

/** A live connection and the tools its server offered when it was made. */
export interface McpConnection {
  server: string;
  client: Client;
  tools: ReadonlyMap<string, Tool>;
  /** The last lines of a stdio server's stderr on one line (`a | b`), to say why it failed ('' when there is none). */
  stderrTail(): string;
}

/** Where a server is used: the run's workspace (real path), and whose configuration it comes from. */
export interface McpServerTarget {
  workspace: string;
  source: McpServerSource;
}

/** The connections of one worker process. */
export interface McpConnectionPool {
  /** The worker's environment: `${VAR}` values and what stdio servers inherit come from here. */
  readonly env: NodeJS.ProcessEnv;
  /**
   * The live connection for these settings, made (and its tools listed) if there is none. It is in use until
   * `release`: a connection in use is never closed for being idle.
   */
  connect(server: string, config: McpServerConfig, target: McpServerTarget): Promise<McpConnection>;
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

/** What the pool starts stdio servers with, besides the worker's environment. */
export interface McpConnectionPoolOptions {
  /** The command sandbox: a run's stdio servers run in it. */
  sandbox: CommandSandbox;
  /** The worker's data directory: stdio servers start in an empty directory under it, outside every workspace. */
  dataDir: string;
  /** Connections unused for this long are closed (default DEFAULT_MCP_IDLE_MS). */
  idleMs?: number;
}

/** Creates the pool; `env` is the worker's environment. */
export function createMcpConnectionPool(env: NodeJS.ProcessEnv, options: McpConnectionPoolOptions): McpConnectionPool {
  const idleMs = options.idleMs ?? DEFAULT_MCP_IDLE_MS;
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

  const connect = (server: string, config: McpServerConfig, target: McpServerTarget): Promise<McpConnection> => {
    // A run's stdio server and the worker's never share a process: one runs in the sandbox, the other as the worker.
    const where = config.type === 'http' ? {} : target;
    const key = `${server}\u0000${digest({ config, where })}`;
    const existing = entries.get(key);
    if (existing) {
      existing.users += 1;
      existing.lastUsed = Date.now();
      return existing.pending;
    }
    const made = open(server, config, { ...target, env, sandbox: options.sandbox, dataDir: options.dataDir }).then(
      (connection) => {
        keys.set(connection, key);
        // A stdio server that exits closes its transport: the next call starts it again.
        connection.client.onclose = () => forget(key, connection);
        return connection;
      },
    );
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
  workspace: string,
): McpServerConfig {
  if (entry.source === 'run') {
    return expandMcpServer(name, entry.config, {
      env,
      workspace,
      refuse: (variable) =>
        envPassRefusal(variable) === undefined
          ? undefined
          : `\${${variable}} is one of the worker's own settings or credentials, which a run's MCP servers cannot use`,
    });
  }
  const config = workerServers[name];
  if (!config) throw new McpConfigError(`this worker has no MCP server named '${name}' (it may have been removed)`);
  return expandMcpServer(name, config, { env, workspace });
}

async function open(
  server: string,
  config: McpServerConfig,
  context: Parameters<typeof stdioLaunch>[2],
): Promise<McpConnection> {
  const [{ Client }] = await loadClientSdk();
  let stderr = '';
  const { transport, cleanup } = await transportFor(server, config, context, (chunk) => {
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
    await cleanup();
    const tail = stderrTail();
    if (tail && error instanceof Error) error.message = `${error.message} (stderr: ${tail})`;
    throw error;
  }
}

async function transportFor(
  server: string,
  config: McpServerConfig,
  context: Parameters<typeof stdioLaunch>[2],
  onStderr: (chunk: string) => void,
): Promise<{ transport: Transport; cleanup: () => Promise<void> }> {
  const [, { StdioClientTransport }, { StreamableHTTPClientTransport }] = await loadClientSdk();
  if (config.type === 'http') {
    const transport = new StreamableHTTPClientTransport(new URL(config.url), {
      ...(config.headers ? { requestInit: { headers: config.headers } } : {}),
    });
    return { transport, cleanup: async () => undefined };
  }
  const launch = await stdioLaunch(server, config, context);
  const transport = new StdioClientTransport({
    command: launch.command,
    args: launch.args,
    env: launch.env,
    cwd: launch.cwd,
    stderr: 'pipe',
  });
  // The client chains this handler: the server's empty directory goes when the server does.
  transport.onclose = () => void launch.cleanup();
  transport.stderr?.on('data', (chunk: Buffer) => onStderr(chunk.toString()));
  return { transport, cleanup: () => launch.cleanup() };
}

function digest(value: unknown): string {
  return createHash('sha256').update(canonicalJson(value)).digest('hex');
}
