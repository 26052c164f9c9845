import { clusterConnectionOptions } from '../../cluster/connection.js';
import { parseArgs } from 'node:util';
import type { Config } from '../../config.js';
import { hostToolQueue } from '../../config.js';
import { payloadThresholdFromEnv } from '../../store/data-converter.js';
import { storeFromEnv } from '../../store/store-from-env.js';
import { runWorker } from '../../worker.js';
import { ensureDevServer } from '../../dev-server/index.js';
import type { CommandSandbox } from '../../activities/sandbox/command-sandbox.js';
import {
  describeSandbox,
  resolveCommandSandbox,
  SandboxUnavailableError,
} from '../../activities/sandbox/command-sandbox.js';
import { provisionBubblewrap } from '../../host/bubblewrap.js';
import { EXIT, UsageError } from '../exit-codes.js';
import { log } from '../output.js';
import { stateDir } from '../../host/state-dir.js';
import { loadOrCreateOperatorKey, operatorKeyPath } from '../../authorization/operator-key.js';
import path from 'node:path';

/** The command sandbox, provisioned if need be; commands never see the worker's state and content store. */
async function workerSandbox(): Promise<CommandSandbox> {
  const executable = await provisionBubblewrap(process.env, log);
  const hidden = [stateDir(), ...(process.env.DURABLE_AGENT_STORE_DIR ? [process.env.DURABLE_AGENT_STORE_DIR] : [])];
  try {
    return await resolveCommandSandbox(process.env, { ...(executable ? { executable } : {}), hidden });
  } catch (error) {
    if (error instanceof SandboxUnavailableError) throw new UsageError(error.message);
    throw error;
  }
}

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
  const clusterAddress = values.address ?? config.temporalAddress;
  const address = clusterAddress ?? (await ensureDevServer()).address;
  const namespace = values.namespace ?? config.namespace;
  const taskQueue = values['task-queue'] ?? config.taskQueue;
  const toolTaskQueue = values['tool-queue'] ?? config.toolTaskQueue ?? hostToolQueue(taskQueue);
  const store = storeFromEnv(process.env, { stateDir: stateDir() });
  const commandSandbox = await workerSandbox();
  log(
    `worker: ${address} namespace=${namespace} task-queue=${taskQueue} tool-queue=${toolTaskQueue} store=${store.description} ${describeSandbox(commandSandbox)} pid=${process.pid}`,
  );
  // The embedded server takes no credential, so its worker acts only for runs (and decisions) signed with the key in
  // the state directory; a cluster's authorization is Temporal's own (mTLS or API keys, its authorizer).
  const operatorKey = clusterAddress
    ? undefined
    : { key: loadOrCreateOperatorKey(stateDir()), bindingsDir: path.join(stateDir(), 'run-proofs') };
  log(
    operatorKey
      ? `worker: runs and decisions must be signed with the operator key ${operatorKeyPath(stateDir())}`
      : "worker: no operator key (a cluster): every run and decision Temporal admits is served; its authorization is Temporal's",
  );
  const payloadSizeThreshold = payloadThresholdFromEnv(process.env);
  await runWorker({
    address,
    // A cluster's TLS and API key come from Temporal's client configuration; the embedded server needs none.
    ...(clusterAddress ? { connectionOptions: clusterConnectionOptions(clusterAddress, process.env) } : {}),
    namespace,
    taskQueue,
    toolTaskQueue,
    env: process.env,
    store,
    payloadSizeThreshold,
    commandSandbox,
    ...(operatorKey ? { operatorKey } : {}),
  });
  return EXIT.finished;
}
