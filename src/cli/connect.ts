// Node: the CLI's one connection to Temporal: TEMPORAL_ADDRESS, or the embedded dev server (started or reused, with
// its background worker and the Web UI's codec endpoint), opened once per command.
import { fileURLToPath } from 'node:url';
import { Client, Connection } from '@temporalio/client';
import type { Config } from '../config.js';
import { dataConverterFromEnv } from '../store/data-converter.js';
import { cliStore } from './cli-store.js';
import { CommandFailure } from './exit-codes.js';
import type { DevServerInfo, DevWorkerSupervision } from '../dev-server/index.js';
import { visibleLines } from '../core/terminal-text.js';
import { color, log } from './output.js';
import { uiOrigins } from '../dev-server/ui-origins.js';
import { ENV_OFFER_VARIABLE } from '../dev-server/worker-environment.js';
import { commaList } from '../core/comma-list.js';

export { runUrl } from './run-url.js';

/** A client plus what the CLI prints about where it is connected. */
export interface Connected {
  client: Client;
  namespace: string;
  taskQueue: string;
  /** Base URL of the Web UI, when known. */
  uiUrl?: string;
  embedded: boolean;
  /** Whether the namespace has the Agent* search attributes (runs upsert them only then); asked once, when needed. */
  hasSearchAttributes(): Promise<boolean>;
  /**
   * Called by a command about to wait on a run: with the embedded server, restarts the background worker whenever it
   * dies until `close` (a cluster's workers are not this CLI's to start).
   */
  keepWorkerAlive(): void;
  close(): Promise<void>;
}

const binPath = fileURLToPath(new URL('../../bin/durable-agent.js', import.meta.url));

/** The command line that starts a worker process of this installation. */
export function workerProcessCommand(): string[] {
  return [process.execPath, binPath, 'worker'];
}

/** The command line that starts the embedded Web UI's codec endpoint, allowing the UI's origins. */
export function codecProcessCommand(server: Pick<DevServerInfo, 'codecUrl' | 'uiUrl'>): string[] {
  const url = new URL(server.codecUrl);
  const origins = uiOrigins(server.uiUrl).flatMap((origin) => ['--cors-origin', origin]);
  return [process.execPath, binPath, 'codec-server', '--host', url.hostname, '--port', url.port, ...origins];
}

/** Starts the embedded Web UI's codec endpoint; when it cannot start, the UI only loses readable payloads, so it warns. */
export async function ensureEmbeddedCodec(server: Pick<DevServerInfo, 'codecUrl' | 'uiUrl'>): Promise<void> {
  if (!server.codecUrl) return;
  try {
    const { ensureDevCodec } = await import('../dev-server/index.js');
    await ensureDevCodec({
      command: codecProcessCommand(server),
      url: server.codecUrl,
      env: process.env,
    });
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    log(
      color.yellow(
        `warning: the Web UI's codec endpoint is not running, so the UI shows content keys: ${visibleLines(reason)}`,
      ),
    );
  }
}

/** How a command connects. */
export interface ConnectOptions {
  /** Whether the command needs a worker: with the embedded server, its background worker is started if need be. */
  needWorker: boolean;
  /**
   * Variables of this shell a run names (its `--env-pass` names, its MCP servers' variables): the embedded worker is
   * started with a defined environment, so these are offered to it on top (one started without them is replaced).
   */
  offerToWorker?: readonly string[];
}

/**
 * Connects to TEMPORAL_ADDRESS when set; otherwise starts (or reuses) the embedded dev server, its background worker and
 * the Web UI's codec endpoint, so detached runs and runs waiting for approval go on after the CLI exits.
 */
export async function connect(config: Config, options: ConnectOptions): Promise<Connected> {
  // Payloads over the External Storage threshold are in the store the workers write to; the client reads them there.
  const dataConverter = dataConverterFromEnv(cliStore(), process.env);
  const connected = (
    connection: Connection,
    where: Pick<Connected, 'uiUrl' | 'embedded' | 'hasSearchAttributes'>,
    supervise?: () => DevWorkerSupervision,
  ): Connected => {
    let supervision: DevWorkerSupervision | undefined;
    return {
      client: new Client({ connection, namespace: config.namespace, dataConverter }),
      namespace: config.namespace,
      taskQueue: config.taskQueue,
      ...where,
      keepWorkerAlive: () => {
        supervision ??= supervise?.();
      },
      close: async () => {
        await supervision?.stop();
        await connection.close();
      },
    };
  };

  const askOnce = (connection: Connection) => {
    let answer: Promise<boolean> | undefined;
    return () =>
      (answer ??= import('../dev-server/index.js').then(({ hasAgentSearchAttributes }) =>
        hasAgentSearchAttributes(connection, config.namespace),
      ));
  };

  if (config.temporalAddress) {
    // Loaded only here: the embedded server's commands need no client configuration.
    const { clusterConnectionOptions } = await import('../cluster/connection.js');
    const options = clusterConnectionOptions(config.temporalAddress, process.env);
    const connection = await Connection.connect(options).catch((error: unknown) => {
      const how = [options.tls ? 'TLS' : 'no TLS', ...(options.apiKey ? ['an API key'] : [])].join(', ');
      throw new CommandFailure(
        `cannot reach Temporal at ${config.temporalAddress} (TEMPORAL_ADDRESS, ${how}): ${error instanceof Error ? error.message : String(error)}`,
      );
    });
    const uiUrl = process.env.TEMPORAL_UI_URL;
    return connected(connection, {
      ...(uiUrl ? { uiUrl } : {}),
      embedded: false,
      hasSearchAttributes: askOnce(connection),
    });
  }

  // The embedded server's code loads only here; the connection that found the server ready is the command's.
  const { ensureDevWorker, openDevServer, superviseDevWorker } = await import('../dev-server/index.js');
  const { server, connection } = await openDevServer();
  const workerEnv = withOffer(process.env, options.offerToWorker ?? []);
  try {
    await Promise.all([
      ensureEmbeddedCodec(server),
      options.needWorker ? ensureDevWorker({ command: workerProcessCommand(), env: workerEnv }) : undefined,
    ]);
  } catch (error) {
    await connection.close();
    throw error;
  }
  // Finding the server ready included registering the agent search attributes in its namespace.
  const ask = askOnce(connection);
  return connected(
    connection,
    {
      ...(server.uiUrl ? { uiUrl: server.uiUrl } : {}),
      embedded: true,
      hasSearchAttributes: async () => server.namespace === config.namespace || (await ask()),
    },
    () => superviseDevWorker({ command: workerProcessCommand(), env: workerEnv }),
  );
}

/** `env` with `names` added to the variables offered to the embedded worker (DURABLE_AGENT_ENV_OFFER). */
function withOffer(env: NodeJS.ProcessEnv, names: readonly string[]): NodeJS.ProcessEnv {
  if (names.length === 0) return env;
  const offered = commaList(env[ENV_OFFER_VARIABLE]);
  return { ...env, [ENV_OFFER_VARIABLE]: [...new Set([...offered, ...names])].join(',') };
}
