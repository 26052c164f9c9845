// Node: every side effect the workflow can ask for, assembled from the dependencies worker.ts passes in.
import { meteredStore } from './telemetry.js';
import { ACTIVITY } from '../protocol/activity-names.js';
import type { ClassifyBashInput } from '../protocol/bash-classification.js';
import { classifyBash } from './classify-bash.js';
import type { PendingWrites } from '../protocol/transcript-ref.js';
import { builtinExecutors } from './executors/index.js';
import type { ToolExecutor } from './executors/types.js';
import type { CommandSandbox } from './sandbox/command-sandbox.js';
import type { CommandNetworkSettings } from './sandbox/command-network.js';
import type { FunctionToolDefinition } from './executors/function-tool.js';
import { functionExecutor } from './executors/function-tool.js';
import { createModelCallActivity } from './model-call.js';
import type { LiveChannel } from '../live/live-channel.js';
import { createApplyOutputBudget, storedToolActivity } from './stored-results.js';
import type { AgentActivities, ToolActivity } from '../protocol/activities.js';
import { createTranscriptStore } from './transcript-store.js';
import { createCheckpointer } from './checkpoint/checkpointer.js';
import { createCheckpointWorkspace } from './checkpoint/call-checkpoint.js';
import { defaultWorkerDataDir } from './worker-data.js';
import { mcpCallExecutor } from './mcp/call-tool.js';
import { createMcpCatalogs } from './mcp/catalog.js';
import { createMcpConnectionPool } from './mcp/connections.js';
import type { McpConnectionPool } from './mcp/connections.js';
import { createListMcpTools } from './mcp/list-tools.js';
import type { McpRunServerPolicy } from '../core/mcp-servers.js';
import type { McpServers } from '../protocol/mcp.js';
import type { ContentStore } from '../store/content-store.js';
import type { ProviderResolver } from '../providers/resolve-provider.js';
import type { FunctionToolSpec } from '../protocol/function-tool-spec.js';
import type { ToolContract } from '../tools/define-tool.js';
import { builtinTools } from '../tools/index.js';
import { createTaskRegistry } from '../tools/task-registry.js';

/** What the activities need from the composition root. */
export interface ActivityDependencies {
  resolveProvider: ProviderResolver;
  /** Where messages, tool results and spilled outputs are stored once, by content key. */
  store: ContentStore;
  /** The tool queue of the workspaces this worker owns (its host), if any. */
  hostToolQueue?: string;
  /** Function tools (docs/tools.md §12) this worker offers to every run it serves. */
  functions?: readonly FunctionToolDefinition[];
  /** The OS sandbox Bash commands run in (resolved once at worker start). */
  commandSandbox: CommandSandbox;
  /** What approved network commands' proxies refuse besides loopback and link-local: the worker's control plane. */
  commandNetwork?: CommandNetworkSettings;
  /** Replaces built-in executors by tool name (a sandboxed deployment's own Bash, a failing tool in tests). */
  executors?: Readonly<Record<string, ToolExecutor>>;
  /**
   * The worker's own MCP servers, the pool of its connections (closed by whoever made it) and which servers a run may
   * bring (default `http`).
   */
  mcp?: { servers: McpServers; connections: McpConnectionPool; runServers?: McpRunServerPolicy };
  /** The worker's own data directory (journal, commands' HOME; worker-data.ts); default `<state dir>/worker`. */
  dataDir?: string;
  /** Where model calls publish their output as it streams (src/live); no live output when omitted. */
  live?: LiveChannel;
  /** Prompts and outputs in model call spans (OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT); off by default. */
  captureContent?: boolean;
}

/** The activities registered on the worker. */
export function createActivities(given: ActivityDependencies) {
  const deps = { ...given, store: meteredStore(given.store) };
  const functions = deps.functions ?? [];
  const transcripts = createTranscriptStore(deps.store);
  // One per worker: its stat cache is what keeps a checkpoint's cost to the files that changed.
  const checkpointer = createCheckpointer(deps.store, { watch: true });
  const toolActivity = (name: string, run: ToolExecutor): ToolActivity =>
    storedToolActivity(name, run, transcripts, {
      hostToolQueue: deps.hostToolQueue,
      checkpointer,
      dataDir: deps.dataDir,
    });
  const specs: FunctionToolSpec[] = functions.map(({ fn: _fn, ...spec }) => spec);
  // The workflow's own registry, so every name the workflow sends resolves to the same schema here.
  const registry = createTaskRegistry(specs);
  const executors = builtinExecutors(deps.commandSandbox, deps.commandNetwork);
  const builtinActivities: Record<string, ToolActivity> = Object.fromEntries(
    builtinTools.map((contract) => {
      const run = deps.executors?.[contract.name] ?? executors[contract.name];
      if (!run) throw new Error(`Built-in tool '${contract.name}' has no executor.`);
      return [contract.name, toolActivity(contract.name, run)];
    }),
  );
  const functionActivities: Record<string, ToolActivity> = Object.fromEntries(
    functions.map((definition) => [definition.name, toolActivity(definition.name, functionExecutor(definition))]),
  );
  // The workflow sends tool names only; their contracts are resolved here so history stays small (STYLE 10). MCP
  // tools come from the task's catalog, which the request names by key.
  const resolveTools = (names: string[], mcp?: ReadonlyMap<string, ToolContract>): ToolContract[] =>
    names.flatMap((name) => {
      const contract = registry.get(name) ?? mcp?.get(name);
      return contract ? [contract] : [];
    });
  const mcp = {
    servers: deps.mcp?.servers ?? {},
    connections:
      deps.mcp?.connections ??
      createMcpConnectionPool(process.env, {
        sandbox: deps.commandSandbox,
        dataDir: deps.dataDir ?? defaultWorkerDataDir(),
      }),
    catalogs: createMcpCatalogs(deps.store),
    ...(deps.mcp?.runServers ? { runServers: deps.mcp.runServers } : {}),
  };
  return {
    ...functionActivities,
    [ACTIVITY.callModel]: createModelCallActivity({
      transcripts,
      resolveProvider: deps.resolveProvider,
      resolveTools,
      mcpContracts: (key) => mcp.catalogs.contracts(key),
      ...(deps.live ? { live: deps.live } : {}),
      ...(deps.captureContent ? { captureContent: true } : {}),
    }),
    /** The function tools of this worker, recorded once per task so the workflow can offer them deterministically. */
    [ACTIVITY.listFunctionTools]: async (): Promise<FunctionToolSpec[]> => specs,
    /** Stores content the workflow made (the last step of a finished run). */
    [ACTIVITY.storeContent]: (writes: PendingWrites): Promise<void> => transcripts.writeAll(writes),
    [ACTIVITY.applyOutputBudget]: createApplyOutputBudget(transcripts),
    [ACTIVITY.classifyBash]: (input: ClassifyBashInput) =>
      classifyBash({ ...input, dataDir: deps.dataDir ?? defaultWorkerDataDir() }),
    [ACTIVITY.checkpointWorkspace]: createCheckpointWorkspace(checkpointer),
    /** The tools of the worker's and the run's MCP servers, listed once per task where the workspace is. */
    [ACTIVITY.listMcpTools]: createListMcpTools({
      ...mcp,
      ...(deps.hostToolQueue ? { hostToolQueue: deps.hostToolQueue } : {}),
    }),
    /** Every MCP tool call: the tool is named in the request, its server found in the task's catalog. */
    [ACTIVITY.callMcpTool]: toolActivity(ACTIVITY.callMcpTool, mcpCallExecutor(mcp)),
    ...builtinActivities,
  } satisfies AgentActivities;
}

/** What the worker registers: AgentActivities (which the workflow proxies), the built-in and the function tools. */
export type Activities = ReturnType<typeof createActivities>;
