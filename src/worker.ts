// Node: the composition root: configuration → store, command sandbox, operator key, providers → activities → Worker.
// The `worker` command and the tests' workers come through here; nothing else assembles a worker's dependencies.
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { NativeConnection, Worker } from '@temporalio/worker';
import type { BundleOptions, NativeConnectionOptions, WorkerOptions } from '@temporalio/worker';
import { createActivities } from './activities/index.js';
import type { Activities, ActivityDependencies } from './activities/index.js';
import type { FunctionToolDefinition } from './activities/executors/function-tool.js';
import path from 'node:path';
import type { CommandSandbox } from './activities/sandbox/command-sandbox.js';
import {
  describeSandbox,
  resolveCommandSandbox,
  SandboxUnavailableError,
} from './activities/sandbox/command-sandbox.js';
import { ConfigError } from './config.js';
import { clusterConnectionOptions } from './cluster/connection.js';
import { loadOrCreateOperatorKey, operatorKeyPath } from './authorization/operator-key.js';
import { provisionBubblewrap } from './host/bubblewrap.js';
import { stateDir } from './host/state-dir.js';
import { payloadThresholdFromEnv } from './store/data-converter.js';
import { storeFromEnv } from './store/store-from-env.js';
import { commandNetworkSettings } from './activities/sandbox/command-network.js';
import { createProviderResolver } from './providers/resolve-provider.js';
import type { ContentStore } from './store/content-store.js';
import type { McpServers } from './protocol/mcp.js';
import { mcpRunServerPolicy, workerMcpServers } from './mcp-config/config-file.js';
import { createMcpConnectionPool } from './activities/mcp/connections.js';
import { agentDataConverter } from './store/data-converter.js';
import { defaultWorkerDataDir } from './activities/worker-data.js';
import { runProofInterceptor } from './activities/authorization/interceptor.js';
import { createRunBindings } from './activities/authorization/run-bindings.js';
import { createRunProofCheck } from './activities/authorization/run-proof-check.js';
import { authorizationActivities } from './activities/authorization/verify-decision.js';
import type { AuthorizationActivities } from './protocol/activities.js';
import type { LiveChannel } from './live/live-channel.js';
import { LIVE_URL_VARIABLE, liveChannelFromEnv } from './live/channel-from-env.js';
import { activityTracing, workflowSpanSinks, workflowTracingInterceptors } from './telemetry/temporal-tracing.js';
import type { Tracing } from './telemetry/tracing.js';
import { startTracing } from './telemetry/tracing.js';
import { installMetricsRuntime } from './telemetry/metrics-runtime.js';
import { telemetrySettings } from './telemetry/settings.js';

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

// The pure layers the workflows stand on: their modules hold no state of a run (architecture.md), so one evaluation
// serves every workflow of the worker's V8 context. Without this, each run start evaluates them all again (the tool
// contracts' zod schemas, the profiles, zod itself): about 2 ms of CPU a step on a 10-step run.
const SHARED_WORKFLOW_LAYERS = ['protocol', 'tools', 'core'];

// A shared module is frozen (exports and everything they reach). picomatch parses with global regular expressions it
// exports, whose lastIndex it must write: it, and every module that loads it, stays evaluated per workflow.
const UNSHAREABLE_PACKAGES = new Set(['picomatch']);

const RUNTIME_IMPORT = /^(?:import|export)\s+(?!type\s)(?:[^'";]*?\sfrom\s+)?'([^']+)'/gm;

/** Sets the depth of the stacks recorded in a workflow context; preloaded, as it must run before the context freezes. */
const workflowStackDepthPath = fileURLToPath(
  new URL(
    import.meta.url.endsWith('.ts') ? './workflows/stack-depth.ts' : './workflows/stack-depth.js',
    import.meta.url,
  ),
);

/**
 * The modules a reusable workflow context evaluates once, before any workflow, and shares between runs: the stack
 * depth setting, and every module of the pure layers that loads no unshareable package. Pass as `preloadModules`
 * wherever the workflows are bundled.
 */
export function sharedWorkflowModules(): string[] {
  const source = path.dirname(path.dirname(workflowsPath));
  const extension = path.extname(workflowsPath);
  const files = SHARED_WORKFLOW_LAYERS.flatMap((layer) =>
    readdirSync(path.join(source, layer), { recursive: true, encoding: 'utf8' })
      .filter((file) => file.endsWith(extension) && !file.endsWith(`.d${extension}`))
      .sort()
      .map((file) => path.join(source, layer, file)),
  );
  const unshareable = new Map<string, boolean>();
  const loadsUnshareable = (file: string): boolean => {
    const known = unshareable.get(file);
    if (known !== undefined) return known;
    unshareable.set(file, false); // an import cycle adds nothing
    const found = [...readFileSync(file, 'utf8').matchAll(RUNTIME_IMPORT)].some(([, specifier]) =>
      specifier!.startsWith('.')
        ? loadsUnshareable(path.resolve(path.dirname(file), specifier!.replace(/\.js$/, extension)))
        : UNSHAREABLE_PACKAGES.has(specifier!.split('/')[0]!),
    );
    unshareable.set(file, found);
    return found;
  };
  return [workflowStackDepthPath, ...files.filter((file) => !loadsUnshareable(file))];
}

/**
 * How `npm run build` bundles the workflows: the entry, interceptors and preloaded modules that a worker bundling at
 * start is given. Temporal's tracing interceptors only in the bundle of a worker that exports traces: they make a span,
 * a header and a sink call of every activity, which costs each workflow task CPU a worker without a trace backend
 * should not pay. Both bundles make the same commands, so either replays the other's histories.
 */
export function agentBundleOptions(options: { tracing?: boolean } = {}): BundleOptions {
  return {
    workflowsPath,
    workflowInterceptorModules: [workflowInterceptorsPath, ...(options.tracing ? [workflowTracingInterceptors] : [])],
    preloadModules: sharedWorkflowModules(),
  };
}

/** Where `npm run build` writes the bundles of the compiled workflows (scripts/bundle-workflows.mjs). */
export const prebuiltBundlePath = fileURLToPath(new URL('./workflow-bundle.js', import.meta.url));
export const prebuiltTracedBundlePath = fileURLToPath(new URL('./workflow-bundle-traced.js', import.meta.url));

/**
 * The bundle `npm run build` made of the compiled workflows, when this is the compiled worker and the bundle is at
 * least as new as every compiled module: bundling at start costs a first run about 4 s of waiting for its first
 * workflow task. A source checkout (run with tsx) or a bundle older than its modules bundles at start.
 */
export function prebuiltWorkflowBundle(options: { tracing?: boolean } = {}): { codePath: string } | undefined {
  const bundlePath = options.tracing ? prebuiltTracedBundlePath : prebuiltBundlePath;
  if (path.extname(workflowsPath) !== '.js' || !existsSync(bundlePath)) return undefined;
  const bundled = statSync(bundlePath).mtimeMs;
  const source = path.dirname(path.dirname(workflowsPath));
  const modules = ['workflows', ...SHARED_WORKFLOW_LAYERS].flatMap((layer) =>
    readdirSync(path.join(source, layer), { recursive: true, encoding: 'utf8' })
      .filter((file) => file.endsWith('.js'))
      .map((file) => path.join(source, layer, file)),
  );
  return modules.every((file) => statSync(file).mtimeMs <= bundled) ? { codePath: bundlePath } : undefined;
}

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
  /** How long a task of a run this worker has cached waits on the worker's own queue before any worker may take it. */
  stickyQueueScheduleToStartTimeoutMs?: number;
  /** Function tools (docs/tools.md §12) offered to every run this worker serves. */
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
  /** Where model calls publish their output as it streams (src/live); none when omitted. Closed by whoever made it. */
  live?: LiveChannel;
  /**
   * Where workflow spans go, and whether model spans carry prompts and outputs. A worker given `workflowBundle` with
   * tracing needs the traced bundle (agentBundleOptions({ tracing: true })); without tracing, no workflow spans are made.
   */
  tracing?: Pick<Tracing, 'processor' | 'resource'> & { captureContent: boolean };
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
      ...(options.live ? { live: options.live } : {}),
      ...(options.tracing?.captureContent ? { captureContent: true } : {}),
    }),
    ...authorizationActivities(operatorKey?.key),
  };
  const interceptors = {
    // A prebuilt bundle brings its own workflow interceptors (bundleWorkflowCode's workflowInterceptorModules).
    ...(options.workflowBundle
      ? {}
      : { workflowModules: [workflowInterceptorsPath, ...(options.tracing ? [workflowTracingInterceptors] : [])] }),
    // The span first, so the proof check's refusal is in the trace too.
    activity: [
      activityTracing,
      ...(operatorKey
        ? [runProofInterceptor(createRunProofCheck(operatorKey.key, createRunBindings(operatorKey.bindingsDir)))]
        : []),
    ],
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
    // A cancellation reaches an activity only in the answer to a heartbeat it sends: the SDK's default throttle (80 % of
    // the heartbeat timeout, 8 s for Bash) would keep an interrupted command running that long.
    maxHeartbeatThrottleInterval: '1 second',
    // A workflow task for a run this worker has cached goes to its own (sticky) queue first; when the worker was
    // killed, the server moves the task to the shared queue only once this passes (10 s by default), so a run whose
    // worker died would wait that long for its next step. A live worker polls its sticky queue at once.
    stickyQueueScheduleToStartTimeout: options.stickyQueueScheduleToStartTimeoutMs ?? 1_000,
    ...(options.identity ? { identity: options.identity } : {}),
  };
  const workers = [
    await Worker.create({
      ...common,
      taskQueue: options.taskQueue,
      ...(options.workflowBundle
        ? { workflowBundle: options.workflowBundle }
        : { workflowsPath, bundlerOptions: { preloadModules: sharedWorkflowModules() } }),
      activities,
      interceptors,
      ...(options.tracing ? { sinks: workflowSpanSinks(options.tracing) } : {}),
    }),
  ];
  if (options.toolTaskQueue && options.toolTaskQueue !== options.taskQueue) {
    workers.push(
      await Worker.create({
        ...common,
        taskQueue: options.toolTaskQueue,
        activities: workspaceActivities(activities),
        interceptors: { activity: interceptors.activity },
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

/** Where a worker process serves, as the `worker` command resolved it. */
export interface WorkerProcessOptions {
  address: string;
  /** Set when `address` is a cluster's (not the embedded server's): its TLS and API key, no operator key. */
  cluster: boolean;
  namespace: string;
  taskQueue: string;
  toolTaskQueue: string;
  /** The process's environment: store, sandbox, provider and Temporal client settings. */
  env: NodeJS.ProcessEnv;
  /** Where the worker says what it serves with and how it is authorized. */
  log: (line: string) => void;
}

/**
 * A worker process of this installation, assembled from its environment: the content store, the command sandbox
 * (bubblewrap provisioned if need be; commands never see the worker's state and content store), the operator key of the
 * embedded server or a cluster's connection settings. Runs until SIGINT/SIGTERM.
 */
export async function runWorkerProcess(options: WorkerProcessOptions): Promise<void> {
  const { env, log } = options;
  // Before any connection: the runtime's metrics are fixed when it is created.
  const telemetry = telemetrySettings(env, 'durable-agent-worker');
  installMetricsRuntime(telemetry, log);
  const tracing = await startTracing(telemetry);
  if (telemetry.traces) log(`telemetry: traces over OTLP (${telemetry.traces.protocol}) to ${telemetry.traces.url}`);
  const store = storeFromEnv(env, { stateDir: stateDir(env) });
  const commandSandbox = await workerSandbox(env, log);
  log(
    `worker: ${options.address} namespace=${options.namespace} task-queue=${options.taskQueue} tool-queue=${options.toolTaskQueue} store=${store.description} ${describeSandbox(commandSandbox)} pid=${process.pid}`,
  );
  // The embedded server takes no credential, so its worker acts only for runs (and decisions) signed with the key in
  // the state directory; a cluster's authorization is Temporal's own (mTLS or API keys, its authorizer).
  const operatorKey = options.cluster
    ? undefined
    : { key: loadOrCreateOperatorKey(stateDir(env)), bindingsDir: path.join(stateDir(env), 'run-proofs') };
  log(
    operatorKey
      ? `worker: runs and decisions must be signed with the operator key ${operatorKeyPath(stateDir(env))}`
      : "worker: no operator key (a cluster): every run and decision Temporal admits is served; its authorization is Temporal's",
  );
  // Live output: the state directory's files on one host, NATS JetStream when DURABLE_AGENT_LIVE_URL names a server.
  const live = await liveChannelFromEnv(env, { role: 'worker', warn: log });
  log(
    `worker: live output ${live ? (env[LIVE_URL_VARIABLE] ? 'through NATS JetStream' : 'in the state directory') : 'off'}`,
  );
  const workflowBundle = prebuiltWorkflowBundle({ tracing: tracing !== undefined });
  log(
    workflowBundle
      ? `worker: workflows from the bundle ${workflowBundle.codePath}`
      : 'worker: workflows bundled at start (no bundle of npm run build as new as the modules)',
  );
  try {
    await runWorker({
      address: options.address,
      // A cluster's TLS and API key come from Temporal's client configuration; the embedded server needs none.
      ...(options.cluster ? { connectionOptions: clusterConnectionOptions(options.address, env) } : {}),
      namespace: options.namespace,
      taskQueue: options.taskQueue,
      toolTaskQueue: options.toolTaskQueue,
      env,
      store,
      payloadSizeThreshold: payloadThresholdFromEnv(env),
      commandSandbox,
      ...(operatorKey ? { operatorKey } : {}),
      ...(live ? { live } : {}),
      ...(workflowBundle ? { workflowBundle } : {}),
      ...(tracing ? { tracing: { ...tracing, captureContent: telemetry.captureContent } } : {}),
    });
  } finally {
    await live?.close();
    await tracing?.shutdown();
  }
}

/** The command sandbox, provisioned if need be; a host that cannot sandbox is a configuration problem. */
async function workerSandbox(env: NodeJS.ProcessEnv, log: (line: string) => void): Promise<CommandSandbox> {
  const executable = await provisionBubblewrap(env, log);
  const hidden = [stateDir(env), ...(env.DURABLE_AGENT_STORE_DIR ? [env.DURABLE_AGENT_STORE_DIR] : [])];
  try {
    return await resolveCommandSandbox(env, { ...(executable ? { executable } : {}), hidden });
  } catch (error) {
    if (error instanceof SandboxUnavailableError) throw new ConfigError(error.message);
    throw error;
  }
}
