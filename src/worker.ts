// The composition root: configuration → providers → activities → Worker. Nothing else assembles dependencies.
import { fileURLToPath } from 'node:url';
import { NativeConnection, Worker } from '@temporalio/worker';
import type { NativeConnectionOptions, WorkerOptions } from '@temporalio/worker';
import { createActivities } from './activities/index.js';
import type { Activities, ActivityDependencies } from './activities/index.js';
import type { FunctionToolDefinition } from './activities/executors/function-tool.js';
import type { CommandSandbox } from './activities/sandbox/command-sandbox.js';
import { resolveCommandSandbox } from './activities/sandbox/command-sandbox.js';
import { commandNetworkSettings } from './activities/sandbox/command-network.js';
import { createProviderResolver } from './providers/resolve-provider.js';
import type { ContentStore } from './store/content-store.js';
import type { McpServers } from './core/mcp-servers.js';
import { mcpRunServerPolicy, workerMcpServers } from './mcp-config/config-file.js';
import { createMcpConnectionPool } from './activities/mcp/connections.js';
import { agentDataConverter } from './store/data-converter.js';
import { defaultWorkerDataDir } from './activities/worker-data.js';
import { runProofInterceptor } from './activities/authorization/interceptor.js';
import { createRunBindings } from './activities/authorization/run-bindings.js';
import { createRunProofCheck } from './activities/authorization/run-proof-check.js';
import { authorizationActivities } from './activities/authorization/verify-decision.js';
import type { AuthorizationActivities } from './activities/authorization/verify-decision.js';

/** The workflow interceptors that carry a run's proof to its activities (bundled with the workflows). */
export const workflowInterceptorsPath = fileURLToPath(
  new URL(
    import.meta.url.endsWith('.ts') ? './workflows/authorization.ts' : './workflows/authorization.js',
    import.meta.url,
  ),
);

/** Entry module of the workflow bundle. */
export const workflowsPath = fileURLToPath(
  new URL(import.meta.url.endsWith('.ts') ? './workflows/index.ts' : './workflows/index.js', import.meta.url),
);

/** Where and how a worker runs. */
export interface AgentWorkerOptions {
  address: string;
  namespace: string;
  /** The shared queue: workflows, model calls, and the tools of runs not pinned to a host. */
  taskQueue: string;
  /**
   * The queue of the workspaces this worker owns: file and shell tools of runs started with this `toolTaskQueue`
   * run only here, so a run never touches another host's filesystem.
   */
  toolTaskQueue?: string;
  /** The worker's environment: provider settings and API keys are read from here, never from workflow input. */
  env?: NodeJS.ProcessEnv;
  /** The content store of transcripts and outputs: every worker and the CLI of a deployment must share it. */
  store: ContentStore;
  /** Payloads of at least this many bytes go to the store through Temporal External Storage (default 256 KiB). */
  payloadSizeThreshold?: number;
  /** A prebuilt workflow bundle (tests share one); otherwise the workflows are bundled at start. */
  workflowBundle?: WorkerOptions['workflowBundle'];
  identity?: string;
  /** Function tools (C.12) offered to every run this worker serves. */
  functions?: readonly FunctionToolDefinition[];
  /**
   * The OS sandbox of Bash commands; default: resolved from `env` (bubblewrap, or DURABLE_AGENT_SANDBOX=off). A worker
   * that cannot sandbox and was not told to run without does not start.
   */
  commandSandbox?: CommandSandbox;
  /**
   * MCP servers offered to every run this worker serves, besides those of the DURABLE_AGENT_MCP_CONFIG file in `env`
   * (these win on a name).
   */
  mcpServers?: McpServers;
  /** Replaces built-in tool executors by name (see ActivityDependencies.executors). */
  executors?: ActivityDependencies['executors'];
  /** TLS, API key and metadata for connections this module opens (a cluster's; see cluster/connection). */
  connectionOptions?: Omit<NativeConnectionOptions, 'address'>;
  /** An existing connection to reuse; otherwise one is opened (and owned by the caller). */
  connection?: NativeConnection;
  /** The worker's own bookkeeping (write journal, commands' HOME), never inside a workspace; default `<state dir>/worker`. */
  dataDir?: string;
  /**
   * The operator's key (the embedded server's; see activities/authorization): every activity first checks that its run
   * was started with a proof from it, and a signed run takes only decisions signed with it. Without one (a cluster,
   * whose authorization is Temporal's own) any run its server admits is served.
   */
  operatorKey?: { key: Uint8Array; bindingsDir: string };
}

/** The Temporal workers of one agent worker process: the shared one, and the workspace one when configured. */
export interface AgentWorkers {
  workers: Worker[];
  /** Runs all of them until shutdown. */
  run(): Promise<void>;
  shutdown(): void;
}

/** Creates the workers that run agent workflows and their model and tool activities. */
export async function createAgentWorkers(options: AgentWorkerOptions): Promise<AgentWorkers> {
  const env = options.env ?? process.env;
  const commandSandbox = options.commandSandbox ?? (await resolveCommandSandbox(env));
  // A bad servers file stops the worker at start, where the operator sees it, rather than failing every run.
  const mcpServers = workerMcpServers(env, options.mcpServers);
  const mcpRunServers = mcpRunServerPolicy(env);
  const connection =
    options.connection ?? (await NativeConnection.connect({ ...options.connectionOptions, address: options.address }));
  const dataDir = options.dataDir ?? defaultWorkerDataDir(env);
  const mcpConnections = createMcpConnectionPool(env, { sandbox: commandSandbox, dataDir });
  const operatorKey = options.operatorKey;
  const activities = {
    ...createActivities({
      resolveProvider: createProviderResolver(env),
      store: options.store,
      commandSandbox,
      // The Temporal frontend this worker uses and the embedded server's ports: no approved command reaches them.
      commandNetwork: commandNetworkSettings(env, options.address),
      ...(options.toolTaskQueue ? { hostToolQueue: options.toolTaskQueue } : {}),
      ...(options.functions ? { functions: options.functions } : {}),
      ...(options.executors ? { executors: options.executors } : {}),
      mcp: { servers: mcpServers, connections: mcpConnections, runServers: mcpRunServers },
      dataDir,
    }),
    ...authorizationActivities(operatorKey?.key),
  };
  const interceptors = {
    // A prebuilt bundle brings its own workflow interceptors (bundleWorkflowCode's workflowInterceptorModules).
    ...(options.workflowBundle ? {} : { workflowModules: [workflowInterceptorsPath] }),
    ...(operatorKey
      ? {
          activity: [
            runProofInterceptor(createRunProofCheck(operatorKey.key, createRunBindings(operatorKey.bindingsDir))),
          ],
        }
      : {}),
  };
  // The same store backs Temporal External Storage: any payload still too large (a failure's details, a query
  // answer) is kept out of history as well.
  const dataConverter = agentDataConverter({
    store: options.store,
    ...(options.toolTaskQueue ? { hostToolQueue: options.toolTaskQueue } : {}),
    ...(options.payloadSizeThreshold !== undefined ? { payloadSizeThreshold: options.payloadSizeThreshold } : {}),
  });
  const common = {
    connection,
    namespace: options.namespace,
    dataConverter,
    ...(options.identity ? { identity: options.identity } : {}),
  };
  const workers = [
    await Worker.create({
      ...common,
      taskQueue: options.taskQueue,
      ...(options.workflowBundle ? { workflowBundle: options.workflowBundle } : { workflowsPath }),
      activities,
      interceptors,
    }),
  ];
  if (options.toolTaskQueue && options.toolTaskQueue !== options.taskQueue) {
    workers.push(
      await Worker.create({
        ...common,
        taskQueue: options.toolTaskQueue,
        activities: workspaceActivities(activities),
        ...(interceptors.activity ? { interceptors: { activity: interceptors.activity } } : {}),
      }),
    );
  }
  return {
    workers,
    run: async () => {
      try {
        await Promise.all(workers.map((worker) => worker.run()));
      } finally {
        // The servers this worker started end with it.
        await mcpConnections.closeAll();
      }
    },
    shutdown: () => {
      for (const worker of workers) worker.shutdown();
    },
  };
}

/** Everything that touches the workspace: tools (built-in, function, MCP), spill files, command classification. */
function workspaceActivities(activities: Activities & AuthorizationActivities): Partial<Activities> {
  const {
    callModel: _model,
    listFunctionTools: _functions,
    storeContent: _store,
    verifyDecision: _verify,
    ...rest
  } = activities;
  return rest;
}

/** Runs a worker process until SIGINT/SIGTERM, then drains and closes its connection. */
export async function runWorker(options: AgentWorkerOptions): Promise<void> {
  const connection = await NativeConnection.connect({ ...options.connectionOptions, address: options.address });
  const agent = await createAgentWorkers({ ...options, connection });
  try {
    await agent.run();
  } finally {
    await connection.close();
  }
}
