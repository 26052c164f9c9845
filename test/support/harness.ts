// Workflow test harness: a real Temporal server (started once by the global setup), one in-process worker per
// test file on its own task queue, and the scripted model served over real OpenAI-compatible HTTP.
import type { CommandSandbox } from '../../src/activities/sandbox/command-sandbox.js';
import { resolveCommandSandbox } from '../../src/activities/sandbox/command-sandbox.js';
import { randomBytes } from 'node:crypto';
import { cp, mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime, bundleWorkflowCode } from '@temporalio/worker';
import { expect, inject } from 'vitest';
import type { ChatMessage } from '../../src/protocol/model.js';
import type { AgentInput } from '../../src/core/state.js';
import { startScriptedModelServer } from '../../src/scripted-model/server.js';
import type { ScriptedModelServerOptions, ScriptTurn } from '../../src/scripted-model/server.js';
import { agentWorkflow } from '../../src/workflows/agent.js';
import { createDirectoryStore } from '../../src/store/directory-store.js';
import type { ContentStore } from '../../src/store/content-store.js';
import { agentBundleOptions, createAgentWorkers } from '../../src/worker.js';
import type { AgentWorkerOptions } from '../../src/worker.js';
import { noteIfSlowTask } from './slow-tasks.js';

let bundle: Promise<{ code: string }> | undefined;
let runtimeInstalled = false;

/** Warnings of this process's workers (SDK and core), kept for tests that assert there are none of a kind. */
export const runtimeWarnings: string[] = [];

// Expected failures (step limits, rejected calls) would otherwise be logged as warnings in every run: warnings are
// recorded (core's too, such as TMPRL1103 for an oversized payload), and only errors are printed.
function quietRuntime(): void {
  if (runtimeInstalled) return;
  const printErrors = new DefaultLogger('ERROR');
  const logger = new DefaultLogger('WARN', (entry) => {
    runtimeWarnings.push(entry.message);
    noteIfSlowTask(entry.message, expect.getState().testPath);
    if (entry.level === 'ERROR') printErrors.log(entry.level, entry.message, entry.meta);
  });
  Runtime.install({ logger, telemetryOptions: { logging: { filter: { core: 'WARN', other: 'WARN' }, forward: {} } } });
  runtimeInstalled = true;
}

/** One workflow bundle per test process: bundling takes seconds. */
export function sharedBundle(): Promise<{ code: string }> {
  bundle ??= bundleWorkflowCode({ ...agentBundleOptions(), logger: quietLogger });
  return bundle;
}

const quietLogger = {
  log: () => undefined,
  trace: () => undefined,
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: (message: string) => console.error(message),
};

/** Address of the test server. */
export function temporalAddress(): string {
  return inject('temporalAddress');
}

/** A connected client and a worker running in this process. */
export interface Harness {
  client: Client;
  taskQueue: string;
  /** The workers' content store (a fresh directory unless the test passes one). */
  store: ContentStore;
  /** The variables that point the CLI's store at the same content (when it is the harness's own directory). */
  storeEnv: Record<string, string>;
  close(): Promise<void>;
}

/** Starts a worker on a fresh task queue; the environment given is the worker's (API keys never enter workflow input). */
export async function startHarness(
  env: NodeJS.ProcessEnv = { OPENAI_API_KEY: 'test-key' },
  options: Partial<
    Pick<
      AgentWorkerOptions,
      | 'functions'
      | 'executors'
      | 'toolTaskQueue'
      | 'identity'
      | 'taskQueue'
      | 'store'
      | 'commandSandbox'
      | 'mcpServers'
      | 'live'
    >
  > = {},
): Promise<Harness> {
  quietRuntime();
  const address = temporalAddress();
  const taskQueue = options.taskQueue ?? `test-${randomBytes(4).toString('hex')}`;
  const workerConnection = await NativeConnection.connect({ address });
  const storeDir = options.store ? undefined : await mkdtemp(join(tmpdir(), 'durable-agent-store-'));
  const store = options.store ?? createDirectoryStore(storeDir!);
  const agent = await createAgentWorkers({
    connection: workerConnection,
    address,
    namespace: 'default',
    taskQueue,
    env,
    workflowBundle: await sharedBundle(),
    commandSandbox: await testCommandSandbox(),
    ...options,
    store,
  });
  const running = agent.run();
  const connection = await Connection.connect({ address });
  const client = new Client({ connection, namespace: 'default' });
  return {
    client,
    taskQueue,
    store,
    storeEnv: storeDir ? { DURABLE_AGENT_STORE_DIR: storeDir } : {},
    async close() {
      agent.shutdown();
      await running;
      await workerConnection.close();
      await connection.close();
    },
  };
}

/** Copies a fixture directory into a fresh temporary workspace. */
export async function workspaceFrom(source?: string): Promise<string> {
  const workspace = await mkdtemp(join(tmpdir(), 'durable-agent-ws-'));
  if (source) await cp(source, workspace, { recursive: true });
  return workspace;
}

/** Starts an agent run against a scripted model and returns its handle plus the model server. */
export async function startScriptedRun(
  harness: Harness,
  options: {
    script: ScriptTurn[];
    workspace: string;
    task?: string;
    input?: Partial<AgentInput>;
    workflowId?: string;
    server?: Omit<ScriptedModelServerOptions, 'script'>;
  },
) {
  const model = await startScriptedModelServer({ ...options.server, script: options.script });
  const input: AgentInput = {
    task: options.task ?? 'Do the scripted task.',
    workspace: options.workspace,
    maxSteps: 20,
    mode: 'default',
    askPolicy: 'deny',
    searchAttributes: true,
    ...options.input,
    // A test picks the model name; the endpoint is always this run's scripted server.
    selection: { provider: 'openai', model: 'scripted-model', ...options.input?.selection, baseUrl: model.url },
  };
  const handle = await harness.client.workflow.start(agentWorkflow, {
    workflowId: options.workflowId ?? `agent-test-${randomBytes(4).toString('hex')}`,
    taskQueue: harness.taskQueue,
    args: [input],
  });
  return { handle, model };
}

/** The invariants every request must satisfy to be accepted by the real OpenAI API. */
export function assertValidChatRequest(body: {
  messages: ChatMessage[];
  tools?: { type: string; function: { parameters: unknown } }[];
}): void {
  const messages = body.messages;
  for (let index = 0; index < messages.length; index++) {
    const message = messages[index]!;
    if (message.role !== 'assistant' && typeof message.content !== 'string')
      throw new Error(`message ${index}: content is not a string`);
    if (message.role === 'tool') {
      const owner = [...messages.slice(0, index)].reverse().find((candidate) => candidate.role === 'assistant');
      if (!owner || owner.role !== 'assistant' || !owner.tool_calls?.some((call) => call.id === message.tool_call_id))
        throw new Error(
          `message ${index}: tool message ${message.tool_call_id} answers no preceding assistant tool call`,
        );
    }
    if (message.role === 'assistant' && message.tool_calls?.length) {
      const answers = messages.slice(index + 1, index + 1 + message.tool_calls.length);
      message.tool_calls.forEach((call, position) => {
        const answer = answers[position];
        if (answer?.role !== 'tool' || answer.tool_call_id !== call.id)
          throw new Error(
            `message ${index}: tool call ${call.id} is not answered in order by exactly one tool message`,
          );
      });
    }
  }
  for (const tool of body.tools ?? []) {
    const parameters = tool.function.parameters as { type?: string } | undefined;
    if (tool.type !== 'function' || parameters?.type !== 'object')
      throw new Error('tool schema is not an object schema');
  }
}

export { toolResult } from './tool-result.js';

let commandSandbox: Promise<CommandSandbox> | undefined;

/**
 * The sandbox test workers run commands in, resolved once per test process from this process's environment (the
 * global setup provides bubblewrap, or turns the sandbox off where none can run), whatever `env` a test gives.
 */
export function testCommandSandbox(): Promise<CommandSandbox> {
  commandSandbox ??= resolveCommandSandbox(process.env);
  return commandSandbox;
}
