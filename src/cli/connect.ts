import { createHash } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { fileURLToPath } from 'node:url';
import type { Config } from '../config.js';
import { dataConverterFromEnv } from '../store/data-converter.js';
import { storeFromEnv } from '../store/store-from-env.js';
import { agentSearchAttributes, ensureDevCodec, ensureDevServer, ensureDevWorker } from './dev-server.js';
import type { DevServerInfo } from './dev-server.js';
import { color, log } from './output.js';
import { stateDir } from './state-dir.js';
import { uiOrigins } from './ui-origins.js';

/** A client plus what the CLI prints about where it is connected. */
export interface Connected {
  client: Client;
  namespace: string;
  taskQueue: string;
  /** Base URL of the Web UI, when known. */
  uiUrl?: string;
  embedded: boolean;
  /** Whether the namespace has the Agent* search attributes (runs upsert them only then). */
  searchAttributes: boolean;
  close(): Promise<void>;
}

const binPath = fileURLToPath(new URL('../../bin/durable-agent.js', import.meta.url));

/** The command that starts a worker process of this installation. */
export function workerCommand(): string[] {
  return [process.execPath, binPath, 'worker'];
}

/** The command that starts the embedded Web UI's codec endpoint, allowing the UI's origins. */
export function codecCommand(server: Pick<DevServerInfo, 'codecUrl' | 'uiUrl'>): string[] {
  const url = new URL(server.codecUrl);
  const origins = uiOrigins(server.uiUrl).flatMap((origin) => ['--cors-origin', origin]);
  return [process.execPath, binPath, 'codec-server', '--host', url.hostname, '--port', url.port, ...origins];
}

// What storeFromEnv reads: a change means the endpoint would read another store, so it is replaced.
const STORE_SETTING = /^(DURABLE_AGENT_STORE|DURABLE_AGENT_S3_|AWS_)/;

/** A digest (never the values: they include credentials) of the store settings the codec endpoint reads. */
export function codecConfiguration(env: NodeJS.ProcessEnv): string {
  const settings = Object.keys(env)
    .filter((name) => STORE_SETTING.test(name))
    .sort()
    .map((name) => `${name}=${env[name] ?? ''}`);
  return createHash('sha256').update(settings.join('\n')).digest('hex');
}

/** Starts the embedded Web UI's codec endpoint; when it cannot start, the UI only loses readable payloads, so it warns. */
export async function ensureEmbeddedCodec(server: Pick<DevServerInfo, 'codecUrl' | 'uiUrl'>): Promise<void> {
  if (!server.codecUrl) return;
  try {
    await ensureDevCodec({
      command: codecCommand(server),
      url: server.codecUrl,
      env: process.env,
      configuration: codecConfiguration(process.env),
    });
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    log(color.yellow(`warning: the Web UI's codec endpoint is not running, so the UI shows content keys: ${reason}`));
  }
}

/**
 * Connects to TEMPORAL_ADDRESS when set; otherwise starts (or reuses) the embedded dev server, its background worker and
 * the Web UI's codec endpoint, so detached runs and runs waiting for approval go on after the CLI exits.
 */
export async function connect(config: Config, options: { needWorker: boolean }): Promise<Connected> {
  let address = config.temporalAddress;
  let uiUrl = process.env.TEMPORAL_UI_URL;
  const embedded = !address;
  // Payloads over the External Storage threshold are in the store the workers write to; the client reads them there.
  const dataConverter = dataConverterFromEnv(storeFromEnv(process.env, { stateDir: stateDir() }), process.env);
  if (!address) {
    const server = await ensureDevServer();
    address = server.address;
    uiUrl = server.uiUrl;
    await Promise.all([
      ensureEmbeddedCodec(server),
      options.needWorker
        ? ensureDevWorker({ command: workerCommand(), env: process.env, configuration: workerConfiguration(process.env) })
        : undefined,
    ]);
  }
  const connection = await Connection.connect({ address });
  return {
    client: new Client({ connection, namespace: config.namespace, dataConverter }),
    searchAttributes: await hasAgentSearchAttributes(connection, config.namespace),
    namespace: config.namespace,
    taskQueue: config.taskQueue,
    ...(uiUrl ? { uiUrl } : {}),
    embedded,
    close: () => connection.close(),
  };
}

const WORKER_SETTINGS = ['OPENAI_API_KEY', 'OPENAI_BASE_URL', 'DURABLE_AGENT_MODEL', 'DURABLE_AGENT_PROVIDER', 'TEMPORAL_NAMESPACE', 'DURABLE_AGENT_TASK_QUEUE',
  // The content store: the worker must write where this CLI reads (output, gc).
  'DURABLE_AGENT_STORE', 'DURABLE_AGENT_STORE_DIR', 'DURABLE_AGENT_S3_ENDPOINT', 'DURABLE_AGENT_S3_FORCE_PATH_STYLE', 'AWS_REGION', 'AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY'];

/** A digest (never the values: the key must not land in a state file) of what the background worker reads from its environment. */
export function workerConfiguration(env: NodeJS.ProcessEnv): string {
  const settings = WORKER_SETTINGS.map((name) => `${name}=${env[name] ?? ''}`).join('\n');
  return createHash('sha256').update(settings).digest('hex');
}

/** True when every Agent* search attribute is registered; a cluster without them still runs agents, unfiltered. */
async function hasAgentSearchAttributes(connection: Connection, namespace: string): Promise<boolean> {
  try {
    const listed = await connection.operatorService.listSearchAttributes({ namespace });
    const existing = { ...listed.systemAttributes, ...listed.customAttributes };
    return Object.keys(agentSearchAttributes).every((name) => name in existing);
  } catch {
    return false; // no permission to list: do not risk a workflow task failing on an unknown attribute
  }
}

/** The Web UI page of one run. */
export function runUrl(connected: Pick<Connected, 'uiUrl' | 'namespace'>, workflowId: string, runId?: string): string | undefined {
  if (!connected.uiUrl) return undefined;
  const base = connected.uiUrl.replace(/\/$/, '');
  const id = encodeURIComponent(workflowId);
  return `${base}/namespaces/${encodeURIComponent(connected.namespace)}/workflows/${id}${runId ? `/${runId}` : ''}/history`;
}
