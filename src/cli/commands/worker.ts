// Node: `worker`: where the worker serves, from the options and the configuration; src/worker.ts assembles it.
import type { Config } from '../../config.js';
import { hostToolQueue } from '../../config.js';
import { ensureDevServer } from '../../dev-server/index.js';
import { runWorkerProcess } from '../../worker.js';
import { EXIT } from '../exit-codes.js';
import { log } from '../output.js';
import { parseCommandLine } from '../option-table.js';
import { workerOptions } from '../options/services.js';

/** `worker`: runs until SIGINT/SIGTERM. */
export async function workerCommand(argv: string[], config: Config): Promise<number> {
  const { values } = parseCommandLine(workerOptions, argv);
  const clusterAddress = values.address ?? config.temporalAddress;
  const address = clusterAddress ?? (await ensureDevServer()).address;
  const taskQueue = values['task-queue'] ?? config.taskQueue;
  await runWorkerProcess({
    address,
    cluster: clusterAddress !== undefined,
    namespace: values.namespace ?? config.namespace,
    taskQueue,
    toolTaskQueue: values['tool-queue'] ?? config.toolTaskQueue ?? hostToolQueue(taskQueue),
    env: process.env,
    log,
  });
  return EXIT.finished;
}
