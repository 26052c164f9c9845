// The Temporal floor of the concurrency bench: workflows with a durable run's step shape (temporal-floor-workflow.ts)
// on a worker with default options, on the same dev server. What many of them at once cost against one is what
// Temporal itself costs on this machine, with no agent code in the step.
import { randomBytes } from 'node:crypto';
import { readFile, readdir } from 'node:fs/promises';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { NativeConnection, Worker, bundleWorkflowCode } from '@temporalio/worker';
import type { DurableEnv } from './durable-env.js';
import { quietLogger } from './durable-env.js';
import type { FloorActivities } from './temporal-floor-workflow.js';
import { temporalFloorWorkflow } from './temporal-floor-workflow.js';

/** Runs floor workflows to the end; returns the wall time of one from start to result. */
export type TemporalFloorRun = (options: { steps: number; latencyMs: number; label: string }) => Promise<number>;

/** Starts a floor worker reading the files under `workspace`/files (writeReadFiles) and returns how to run one. */
export async function startTemporalFloor(env: DurableEnv, workspace: string): Promise<TemporalFloorRun> {
  const filesDirectory = path.join(workspace, 'files');
  const files = (await readdir(filesDirectory)).sort().map((name) => path.join(filesDirectory, name));
  const bundle = await bundleWorkflowCode({
    workflowsPath: fileURLToPath(new URL('./temporal-floor-workflow.ts', import.meta.url)),
    logger: quietLogger,
  });
  const taskQueue = `bench-floor-${randomBytes(4).toString('hex')}`;
  let latencyMs = 0;
  const activities: FloorActivities = {
    async modelCall(step) {
      await sleep(latencyMs);
      return JSON.stringify({ step, content: `turn-${step}` });
    },
    async readFile(file) {
      return (await readFile(file)).length;
    },
  };
  const connection = await NativeConnection.connect({ address: env.address });
  const worker = await Worker.create({
    connection,
    namespace: env.namespace,
    taskQueue,
    workflowBundle: bundle,
    activities,
  });
  const running = worker.run();
  env.onClose(async () => {
    worker.shutdown();
    await running;
    await connection.close();
  });
  return async (options) => {
    latencyMs = options.latencyMs;
    const started = performance.now();
    const bytes = await env.client.workflow.execute(temporalFloorWorkflow, {
      workflowId: `bench-floor-${options.label}-${randomBytes(4).toString('hex')}`,
      taskQueue,
      args: [{ steps: options.steps, files }],
    });
    if (bytes <= 0) throw new Error(`floor run ${options.label} read nothing`);
    return performance.now() - started;
  };
}
