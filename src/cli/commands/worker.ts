import { parseArgs } from 'node:util';
import type { Config } from '../../config.js';
import { hostToolQueue } from '../../config.js';
import { payloadThresholdFromEnv } from '../../store/data-converter.js';
import { storeFromEnv } from '../../store/store-from-env.js';
import { runWorker } from '../../worker.js';
import { ensureDevServer } from '../dev-server/index.js';
import { EXIT } from '../exit-codes.js';
import { log } from '../output.js';
import { stateDir } from '../state-dir.js';

/** `worker`: runs until SIGINT/SIGTERM. */
export async function workerCommand(argv: string[], config: Config): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      address: { type: 'string' },
      namespace: { type: 'string' },
      'task-queue': { type: 'string' },
      'tool-queue': { type: 'string' },
    },
  });
  const address = values.address ?? config.temporalAddress ?? (await ensureDevServer()).address;
  const namespace = values.namespace ?? config.namespace;
  const taskQueue = values['task-queue'] ?? config.taskQueue;
  const toolTaskQueue = values['tool-queue'] ?? config.toolTaskQueue ?? hostToolQueue(taskQueue);
  const store = storeFromEnv(process.env, { stateDir: stateDir() });
  log(
    `worker: ${address} namespace=${namespace} task-queue=${taskQueue} tool-queue=${toolTaskQueue} store=${store.description} pid=${process.pid}`,
  );
  const payloadSizeThreshold = payloadThresholdFromEnv(process.env);
  await runWorker({ address, namespace, taskQueue, toolTaskQueue, env: process.env, store, payloadSizeThreshold });
  return EXIT.finished;
}
