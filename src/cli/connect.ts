import { createHash } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { fileURLToPath } from 'node:url';
import type { Config } from '../config.js';
import { ensureDevServer, ensureDevWorker } from './dev-server.js';

/** A client plus what the CLI prints about where it is connected. */
export interface Connected {
  client: Client;
  namespace: string;
  taskQueue: string;
  /** Base URL of the Web UI, when known. */
  uiUrl?: string;
  embedded: boolean;
  close(): Promise<void>;
}

const binPath = fileURLToPath(new URL('../../bin/durable-agent.js', import.meta.url));

/** The command that starts a worker process of this installation. */
export function workerCommand(): string[] {
  return [process.execPath, binPath, 'worker'];
}

/**
 * Connects to TEMPORAL_ADDRESS when set; otherwise starts (or reuses) the embedded dev server and its background worker,
 * so detached runs and runs waiting for approval go on after the CLI exits.
 */
export async function connect(config: Config, options: { needWorker: boolean }): Promise<Connected> {
  let address = config.temporalAddress;
  let uiUrl = process.env.TEMPORAL_UI_URL;
  const embedded = !address;
  if (!address) {
    const server = await ensureDevServer();
    address = server.address;
    uiUrl = server.uiUrl;
    if (options.needWorker)
      await ensureDevWorker({ command: workerCommand(), env: process.env, configuration: workerConfiguration(process.env) });
  }
  const connection = await Connection.connect({ address });
  return {
    client: new Client({ connection, namespace: config.namespace }),
    namespace: config.namespace,
    taskQueue: config.taskQueue,
    ...(uiUrl ? { uiUrl } : {}),
    embedded,
    close: () => connection.close(),
  };
}

const WORKER_SETTINGS = ['OPENAI_API_KEY', 'OPENAI_BASE_URL', 'DURABLE_AGENT_MODEL', 'DURABLE_AGENT_PROVIDER', 'TEMPORAL_NAMESPACE', 'DURABLE_AGENT_TASK_QUEUE'];

/** A digest (never the values: the key must not land in a state file) of what the background worker reads from its environment. */
export function workerConfiguration(env: NodeJS.ProcessEnv): string {
  const settings = WORKER_SETTINGS.map((name) => `${name}=${env[name] ?? ''}`).join('\n');
  return createHash('sha256').update(settings).digest('hex');
}

/** The Web UI page of one run. */
export function runUrl(connected: Pick<Connected, 'uiUrl' | 'namespace'>, workflowId: string, runId?: string): string | undefined {
  if (!connected.uiUrl) return undefined;
  const base = connected.uiUrl.replace(/\/$/, '');
  const id = encodeURIComponent(workflowId);
  return `${base}/namespaces/${encodeURIComponent(connected.namespace)}/workflows/${id}${runId ? `/${runId}` : ''}/history`;
}
