// Node: the CLI's one connection to Temporal: TEMPORAL_ADDRESS, or the embedded dev server (started or reused, with
// its background worker and the Web UI's codec endpoint), opened once per command.
import { Client, Connection } from '@temporalio/client';
import type { WorkflowClientInterceptor } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import { TRACE_HEADER, traceCarrier } from './trace-parent.js';
import type { Config } from '../config.js';
import { dataConverterFromEnv } from '../store/data-converter.js';
import { cliStore } from './cli-store.js';
import { CommandFailure } from './exit-codes.js';
import type { DevServerInfo, DevWorkerSupervision } from '../dev-server/index.js';
import { updateAfterWaitingTask } from './task-settled.js';
import { ensureEmbeddedCodec } from './embedded-codec.js';
import { workerProcessCommand } from './worker-command.js';
import { withEnvOffer } from '../dev-server/worker-environment.js';

export { runUrl } from './run-url.js';
export { codecProcessCommand, workerProcessCommand } from './worker-command.js';

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

/** A Connected over `connection`; `supervise` keeps the embedded worker alive while a command waits on a run. */
function connectedOf(
  config: Config,
  connection: Connection,
  where: Pick<Connected, 'uiUrl' | 'embedded' | 'hasSearchAttributes'>,
  supervise?: () => DevWorkerSupervision,
): Connected {
  // Payloads over the External Storage threshold are in the store the workers write to; the client reads them there.
  const dataConverter = dataConverterFromEnv(cliStore(), process.env);
  let supervision: DevWorkerSupervision | undefined;
  return {
    client: new Client({
      connection,
      namespace: config.namespace,
      dataConverter,
      // Every Update this CLI sends waits until no task of its run waits unstarted (task-settled.ts).
      interceptors: { workflow: [updateAfterWaitingTask(connection, config.namespace), ...joinedTrace()] },
    }),
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
}

// A run this client starts joins the caller's trace when the shell names one (TRACEPARENT).
function joinedTrace(): WorkflowClientInterceptor[] {
  const carrier = traceCarrier(process.env);
  if (!carrier) return [];
  const header = defaultPayloadConverter.toPayload(carrier);
  return [{ start: (input, next) => next({ ...input, headers: { ...input.headers, [TRACE_HEADER]: header } }) }];
}

function askOnce(config: Config, connection: Connection): () => Promise<boolean> {
  let answer: Promise<boolean> | undefined;
  return () =>
    (answer ??= import('../dev-server/index.js').then(({ hasAgentSearchAttributes }) =>
      hasAgentSearchAttributes(connection, config.namespace),
    ));
}

/**
 * Connects to TEMPORAL_ADDRESS when set; otherwise starts (or reuses) the embedded dev server, its background worker and
 * the Web UI's codec endpoint, so detached runs and runs waiting for approval go on after the CLI exits.
 */
export async function connect(config: Config, options: ConnectOptions): Promise<Connected> {
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
    return connectedOf(config, connection, {
      ...(uiUrl ? { uiUrl } : {}),
      embedded: false,
      hasSearchAttributes: askOnce(config, connection),
    });
  }

  // The embedded server's code loads only here; the connection that found the server ready is the command's.
  const { ensureDevWorker, openDevServer, superviseDevWorker } = await import('../dev-server/index.js');
  const { server, connection } = await openDevServer();
  const workerEnv = withEnvOffer(process.env, options.offerToWorker ?? []);
  try {
    await Promise.all([
      ensureEmbeddedCodec(server),
      options.needWorker ? ensureDevWorker({ command: workerProcessCommand(), env: workerEnv }) : undefined,
    ]);
  } catch (error) {
    await connection.close();
    throw error;
  }
  return embeddedConnected(config, connection, server, () =>
    superviseDevWorker({ command: workerProcessCommand(), env: workerEnv }),
  );
}

/**
 * The connection of a command that has already started its run through the embedded server's HTTP API, having found
 * the server and a worker of this configuration running (cli/start-over-http.ts): opened after the start, without
 * asking again what the start proved. The Web UI's codec endpoint is checked here, after the run is under way.
 */
export async function connectAfterStart(
  config: Config,
  server: Pick<DevServerInfo, 'address' | 'namespace' | 'uiUrl' | 'codecUrl'>,
  workerEnv: NodeJS.ProcessEnv,
): Promise<Connected> {
  const [connection, { superviseDevWorker }] = await Promise.all([
    Connection.connect({ address: server.address }),
    import('../dev-server/index.js'),
    ensureEmbeddedCodec(server),
  ]);
  return embeddedConnected(config, connection, server, () =>
    superviseDevWorker({ command: workerProcessCommand(), env: workerEnv }),
  );
}

function embeddedConnected(
  config: Config,
  connection: Connection,
  server: Pick<DevServerInfo, 'namespace' | 'uiUrl'>,
  supervise: () => DevWorkerSupervision,
): Connected {
  // Finding the server ready included registering the agent search attributes in its namespace.
  const ask = askOnce(config, connection);
  return connectedOf(
    config,
    connection,
    {
      ...(server.uiUrl ? { uiUrl: server.uiUrl } : {}),
      embedded: true,
      hasSearchAttributes: async () => server.namespace === config.namespace || (await ask()),
    },
    supervise,
  );
}
