// The composition root: configuration → providers → activities → Worker. Nothing else assembles dependencies.
import { fileURLToPath } from 'node:url';
import { NativeConnection, Worker } from '@temporalio/worker';
import type { WorkerOptions } from '@temporalio/worker';
import { createActivities } from './activities/index.js';
import { createProviderResolver } from './providers/resolve-provider.js';

/** Entry module of the workflow bundle. */
export const workflowsPath = fileURLToPath(new URL('./workflows/index.ts', import.meta.url));

/** Where and how a worker runs. */
export interface AgentWorkerOptions {
  address: string;
  namespace: string;
  taskQueue: string;
  /** The worker's environment: provider settings and API keys are read from here, never from workflow input. */
  env?: NodeJS.ProcessEnv;
  /** A prebuilt workflow bundle (tests share one); otherwise the workflows are bundled at start. */
  workflowBundle?: WorkerOptions['workflowBundle'];
  identity?: string;
  /** An existing connection to reuse; otherwise one is opened (and owned by the caller of `worker.connection`). */
  connection?: NativeConnection;
}

/** Creates a worker that runs agent workflows and their model and tool activities. */
export async function createAgentWorker(options: AgentWorkerOptions): Promise<Worker> {
  const connection = options.connection ?? (await NativeConnection.connect({ address: options.address }));
  const activities = createActivities({ resolveProvider: createProviderResolver(options.env ?? process.env) });
  return Worker.create({
    connection,
    namespace: options.namespace,
    taskQueue: options.taskQueue,
    ...(options.workflowBundle ? { workflowBundle: options.workflowBundle } : { workflowsPath }),
    activities,
    ...(options.identity ? { identity: options.identity } : {}),
  });
}

/** Runs a worker until SIGINT/SIGTERM, then drains and closes its connection. */
export async function runWorker(options: AgentWorkerOptions): Promise<void> {
  const connection = await NativeConnection.connect({ address: options.address });
  const worker = await createAgentWorker({ ...options, connection });
  try {
    await worker.run();
  } finally {
    await connection.close();
  }
}
