// A worker process for fault and load tests, built as `durable-agent worker` builds one (createAgentWorkers), from a
// prebuilt workflow bundle so it starts in a second. With `pauseBeforeCommit`, its file writes stop at the one moment
// a crash is interesting: the new bytes are durable in the temp file, the rename has not happened. It then writes that
// marker file and waits to be killed.
//
// Usage (compiled by worker-process.ts): node worker-process-main.mjs '<WorkerProcessConfig as JSON>'
import { writeFile } from 'node:fs/promises';
import { DefaultLogger, NativeConnection } from '@temporalio/worker';
import { installMetricsRuntime } from '../../src/telemetry/metrics-runtime.js';
import { telemetrySettings } from '../../src/telemetry/settings.js';
import { startTracing } from '../../src/telemetry/tracing.js';
import { builtinExecutors } from '../../src/activities/executors/index.js';
import { resolveCommandSandbox } from '../../src/activities/sandbox/command-sandbox.js';
import type { ToolExecutor } from '../../src/activities/executors/types.js';
import { storeFromEnv } from '../../src/store/store-from-env.js';
import { createAgentWorkers } from '../../src/worker.js';
import { noteIfSlowTask } from './slow-tasks.js';
import type { WorkerProcessConfig } from './worker-process.js';

const config = JSON.parse(process.argv[2]!) as WorkerProcessConfig;
// Errors print; of the warnings, only a slow workflow task is kept (counted for the whole test run).
const printErrors = new DefaultLogger('ERROR');
// Traces and metrics as `durable-agent worker` exports them, when the test's settings name a destination.
const telemetry = telemetrySettings(config.env ?? {}, 'durable-agent-worker');
installMetricsRuntime(telemetry, (line) => console.log(line), {
  logger: new DefaultLogger('WARN', (entry) => {
    noteIfSlowTask(entry.message);
    if (entry.level === 'ERROR') printErrors.log(entry.level, entry.message, entry.meta);
  }),
  telemetryOptions: { logging: { filter: { core: 'WARN', other: 'ERROR' }, forward: {} } },
});
const tracing = await startTracing(telemetry);

/** The built-in write executor, stopped for good just before its commit. */
function pausedBeforeCommit(executor: ToolExecutor, marker: string): ToolExecutor {
  return (context) =>
    executor({
      ...context,
      beforeCommit: async (rel) => {
        await writeFile(marker, JSON.stringify({ rel, pid: process.pid }));
        await new Promise(() => undefined);
      },
    });
}

// Commands run in the sandbox the test process has (the global setup's bubblewrap, or off where none can run).
const commandSandbox = await resolveCommandSandbox(process.env);
const executors = builtinExecutors(commandSandbox);
const connection = await NativeConnection.connect({ address: config.address });
const agent = await createAgentWorkers({
  commandSandbox,
  connection,
  address: config.address,
  namespace: 'default',
  taskQueue: config.taskQueue,
  env: { OPENAI_API_KEY: 'test-key', ...config.env },
  // The directory store, unless the test's settings name another one (an S3 bucket) as a deployment would.
  store: storeFromEnv({ DURABLE_AGENT_STORE_DIR: config.storeDir, ...config.env }, { stateDir: config.storeDir }),
  workflowBundle: { codePath: config.bundlePath },
  ...(tracing ? { tracing: { ...tracing, captureContent: telemetry.captureContent } } : {}),
  ...(config.stickyQueueScheduleToStartTimeoutMs
    ? { stickyQueueScheduleToStartTimeoutMs: config.stickyQueueScheduleToStartTimeoutMs }
    : {}),
  ...(config.pauseBeforeCommit
    ? {
        executors: {
          WriteFile: pausedBeforeCommit(executors.WriteFile!, config.pauseBeforeCommit),
          EditFile: pausedBeforeCommit(executors.EditFile!, config.pauseBeforeCommit),
        },
      }
    : {}),
});
const running = agent.run();
process.stdout.write('ready\n');
process.once('SIGTERM', () => agent.shutdown());
await running;
await connection.close();
await tracing?.shutdown();
