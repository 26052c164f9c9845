import { parseArgs } from 'node:util';
import type { Config } from '../../config.js';
import { runWorker } from '../../worker.js';
import { ensureDevServer } from '../dev-server.js';
import { EXIT } from '../exit-codes.js';
import { log } from '../output.js';

/** Help text of `worker`. */
export const workerHelp = `Usage: durable-agent worker [--address HOST:PORT] [--namespace NS] [--task-queue Q]

Runs a worker: agent workflows, model calls and tool calls. Without an address (or TEMPORAL_ADDRESS) it uses the
embedded dev server, starting it if needed. Provider settings and API keys come from this process's environment.`;

/** `worker`: runs until SIGINT/SIGTERM. */
export async function workerCommand(argv: string[], config: Config): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      address: { type: 'string' },
      namespace: { type: 'string' },
      'task-queue': { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) {
    process.stdout.write(`${workerHelp}\n`);
    return EXIT.finished;
  }
  const address = values.address ?? config.temporalAddress ?? (await ensureDevServer()).address;
  const namespace = values.namespace ?? config.namespace;
  const taskQueue = values['task-queue'] ?? config.taskQueue;
  log(`worker: ${address} namespace=${namespace} task-queue=${taskQueue} pid=${process.pid}`);
  await runWorker({ address, namespace, taskQueue, env: process.env });
  return EXIT.finished;
}
