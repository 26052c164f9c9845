// The Temporal side of the durable-run benchmarks: one dev server and one workflow bundle for the whole bench, and
// workers made the way the CLI makes them (createAgentWorkers), each on its own task queue with its own content store.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { Client, Connection } from '@temporalio/client';
import type { WorkflowHandleWithFirstExecutionRunId } from '@temporalio/client';
import type { DataConverter } from '@temporalio/common';
import { DefaultLogger, NativeConnection, Runtime, bundleWorkflowCode } from '@temporalio/worker';
import type { WorkflowBundle } from '@temporalio/worker';
import type { AgentInput } from '../src/core/state.js';
import type { LiveChannel } from '../src/live/live-channel.js';
import type { AgentResult } from '../src/protocol/run-report.js';
import { startScriptedModelServer } from '../src/scripted-model/server.js';
import type { ScriptedModelServer, ScriptedModelServerOptions } from '../src/scripted-model/server.js';
import { agentDataConverter } from '../src/store/data-converter.js';
import { createDirectoryStore } from '../src/store/directory-store.js';
import { agentWorkflow } from '../src/workflows/agent.js';
import { agentBundleOptions, createAgentWorkers } from '../src/worker.js';
import { startTestTemporalServer } from '../test/support/temporal-server.js';
import { SLOW_TASK_MS } from '../test/support/task-timings.js';

/** The task every benchmark run is given; the scripted model decides what happens. */
export const BENCH_TASK = 'Read the files one by one and say when you are done.';

/** A worker polling its own task queue, with its own directory store, and a client that reads that store. */
export interface BenchWorker {
  taskQueue: string;
  /** The queue of the workspaces this worker owns: runs are pinned to it, as the CLI pins runs to its host's worker. */
  toolTaskQueue: string;
  storeDirectory: string;
  /** The worker's data converter: payloads over 256 KiB go to its store through Temporal External Storage. */
  dataConverter: DataConverter;
  /** Starts runs and reads their results with the worker's data converter, as the CLI does with its store. */
  client: Client;
}

/** A run to start: its script and workspace, and what to add to the default input. */
export interface RunOptions {
  script: ScriptedModelServerOptions['script'];
  workspace: string;
  maxSteps: number;
  latencyMs: number;
  input?: Partial<AgentInput>;
  /** Called once per served turn with its number (1-based) and the time it was served. */
  onTurn?: (turn: number, at: number) => void;
  label: string;
}

/** A started run and its model server (which the caller closes). */
export interface StartedRun {
  handle: WorkflowHandleWithFirstExecutionRunId<typeof agentWorkflow>;
  model: ScriptedModelServer;
}

export interface DurableEnv {
  /** The dev server's address and namespace, for workers and clients of other workflows. */
  address: string;
  namespace: string;
  /** For histories only: it decodes no payloads, so it needs no store. */
  client: Client;
  bundle: WorkflowBundle;
  /** Messages of the SDK's and core's warnings so far (TMPRL1103: a payload over the warning size). */
  warnings: string[];
  /** A fresh temporary directory, removed by close(). */
  tempDirectory(prefix: string): Promise<string>;
  /** Runs `closer` when the environment closes, before what was opened earlier. */
  onClose(closer: () => Promise<void>): void;
  /** A worker as `durable-agent worker` makes one; `payloadSizeThreshold` and `live` as in AgentWorkerOptions. */
  startWorker(options?: { payloadSizeThreshold?: number; live?: LiveChannel }): Promise<BenchWorker>;
  startModel(options: Pick<RunOptions, 'script' | 'latencyMs' | 'onTurn'>): Promise<ScriptedModelServer>;
  startRun(worker: BenchWorker, options: RunOptions): Promise<StartedRun>;
  /** Starts a run, waits for it and checks it completed every step; returns its wall time from start to result. */
  runToEnd(
    worker: BenchWorker,
    options: RunOptions,
  ): Promise<{ ms: number; result: AgentResult; workflowId: string; firstRunId: string }>;
  close(): Promise<void>;
}

const TURN_LINE = /serving turn (\d+)\//;

/** Starts the dev server (built or cached by findTemporalBinary) and bundles the workflows once. */
export async function startDurableEnv(log: (line: string) => void): Promise<DurableEnv> {
  const warnings: string[] = [];
  installQuietRuntime(warnings);
  const server = await startTestTemporalServer({ ui: false, log });
  const closers: (() => Promise<void>)[] = [() => server.stop()];
  const close = async (): Promise<void> => {
    for (const closer of closers.reverse()) await closer().catch(() => undefined);
  };
  try {
    const bundle = await bundleWorkflowCode({ ...agentBundleOptions(), logger: quietLogger });
    // A page of an inline-transcript run's history holds events of hundreds of kilobytes each: more than gRPC's
    // default 4 MB a message.
    const connection = await Connection.connect({
      address: server.address,
      channelArgs: { 'grpc.max_receive_message_length': 128 * 1024 * 1024 },
    });
    closers.push(() => connection.close());
    const client = new Client({ connection, namespace: server.namespace });

    const tempDirectory = async (prefix: string): Promise<string> => {
      const directory = await mkdtemp(path.join(os.tmpdir(), `durable-agent-bench-${prefix}-`));
      closers.push(() => rm(directory, { recursive: true, force: true }));
      return directory;
    };

    const startWorker: DurableEnv['startWorker'] = async (options = {}) => {
      const storeDirectory = await tempDirectory('store');
      const store = createDirectoryStore(storeDirectory);
      const dataConverter = agentDataConverter({ store, ...options });
      const taskQueue = `bench-${randomBytes(4).toString('hex')}`;
      const toolTaskQueue = `${taskQueue}@bench-host`;
      const workerConnection = await NativeConnection.connect({ address: server.address });
      const agent = await createAgentWorkers({
        connection: workerConnection,
        address: server.address,
        namespace: server.namespace,
        taskQueue,
        toolTaskQueue,
        env: { OPENAI_API_KEY: 'unused' },
        // The benchmark scripts run no commands.
        commandSandbox: { kind: 'off' },
        store,
        workflowBundle: bundle,
        ...options,
      });
      const running = agent.run();
      closers.push(async () => {
        agent.shutdown();
        await running;
        await workerConnection.close();
      });
      return {
        taskQueue,
        toolTaskQueue,
        storeDirectory,
        dataConverter,
        client: new Client({ connection, namespace: server.namespace, dataConverter }),
      };
    };

    const startModel: DurableEnv['startModel'] = (options) =>
      startScriptedModelServer({
        script: options.script,
        latencyMs: options.latencyMs,
        // Long runs would otherwise keep every request body (the whole transcript, every step) in memory.
        keepRequests: 2,
        compactionSummary: 'The files read so far hold nothing unexpected; go on reading them one by one.',
        ...(options.onTurn ? { log: turnLogger(options.onTurn) } : {}),
      });

    const startRun: DurableEnv['startRun'] = async (worker, options) => {
      const model = await startModel(options);
      const input: AgentInput = {
        task: BENCH_TASK,
        workspace: options.workspace,
        maxSteps: options.maxSteps,
        mode: 'default',
        askPolicy: 'deny',
        // As the CLI starts runs: the Agent* search attributes are kept up to date, and that is history too.
        searchAttributes: true,
        toolTaskQueue: worker.toolTaskQueue,
        ...options.input,
        selection: { provider: 'openai', model: 'scripted-model', baseUrl: model.url },
      };
      const handle = await worker.client.workflow.start(agentWorkflow, {
        workflowId: `bench-${options.label}-${randomBytes(4).toString('hex')}`,
        taskQueue: worker.taskQueue,
        args: [input],
      });
      return { handle, model };
    };

    const runToEnd: DurableEnv['runToEnd'] = async (worker, options) => {
      const started = performance.now();
      const { handle, model } = await startRun(worker, options);
      try {
        const result = await handle.result();
        const ms = performance.now() - started;
        if (result.status !== 'completed' || result.steps !== options.maxSteps) {
          throw new Error(
            `${options.label} run ended ${result.status} after ${result.steps} steps: ${result.error ?? ''}`,
          );
        }
        return { ms, result, workflowId: handle.workflowId, firstRunId: handle.firstExecutionRunId };
      } finally {
        await model.close();
      }
    };

    return {
      address: server.address,
      namespace: server.namespace,
      client,
      bundle,
      warnings,
      tempDirectory,
      onClose: (closer) => closers.push(closer),
      startWorker,
      startModel,
      startRun,
      runToEnd,
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}

/** The model server's log as turn numbers with the time each was served (compaction answers take no turn). */
export function turnLogger(onTurn: (turn: number, at: number) => void): (line: string) => void {
  return (line) => {
    const turn = TURN_LINE.exec(line)?.[1];
    if (turn !== undefined) onTurn(Number(turn), performance.now());
  };
}

// Warnings are collected (the history section counts TMPRL1103, a payload over the warning size; every durable section
// TMPRL1104, a workflow task over 1 s); only errors print.
function installQuietRuntime(warnings: string[]): void {
  // Core warns of a workflow task that took longer than this (TMPRL1104; 5 s by default): the limit the bench holds
  // runs to. Read once, when the runtime starts.
  process.env.TEMPORAL_WORKFLOW_TASK_DURATION_WARN_SECONDS ??= String(SLOW_TASK_MS / 1000);
  const printErrors = new DefaultLogger('ERROR');
  const logger = new DefaultLogger('WARN', (entry) => {
    warnings.push(entry.message);
    if (entry.level === 'ERROR') printErrors.log(entry.level, entry.message, entry.meta);
  });
  Runtime.install({ logger, telemetryOptions: { logging: { filter: { core: 'WARN', other: 'WARN' }, forward: {} } } });
}

const ignore = (): undefined => undefined;
export const quietLogger = {
  log: ignore,
  trace: ignore,
  debug: ignore,
  info: ignore,
  warn: ignore,
  error: (message: string) => console.error(message),
};
