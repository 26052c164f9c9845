// What the background worker reads from its environment, as a digest: a worker started with another configuration is
// replaced (connect), and a query is only sent to one that runs with this one (the HTTP API path of `status`).
import { createHash } from 'node:crypto';

const WORKER_SETTINGS = [
  'OPENAI_API_KEY',
  'OPENAI_BASE_URL',
  'DURABLE_AGENT_MODEL',
  'DURABLE_AGENT_PROVIDER',
  'TEMPORAL_NAMESPACE',
  'DURABLE_AGENT_TASK_QUEUE',
  // The content store: the worker must write where this CLI reads (output, gc).
  'DURABLE_AGENT_STORE',
  'DURABLE_AGENT_STORE_DIR',
  'DURABLE_AGENT_S3_ENDPOINT',
  'DURABLE_AGENT_S3_FORCE_PATH_STYLE',
  'AWS_REGION',
  'AWS_ACCESS_KEY_ID',
  'AWS_SECRET_ACCESS_KEY',
];

/** A digest (never the values: the key must not land in a state file) of what the background worker reads from its environment. */
export function workerConfiguration(env: Readonly<Record<string, string | undefined>>): string {
  const settings = WORKER_SETTINGS.map((name) => `${name}=${env[name] ?? ''}`).join('\n');
  return createHash('sha256').update(settings).digest('hex');
}
