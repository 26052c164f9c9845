import { hostname } from 'node:os';
import { z } from 'zod';
import { PROVIDER_NAMES } from './providers/table.js';

/** The model providers a run can name (`--provider`, DURABLE_AGENT_PROVIDER): the provider table's names. */
export { PROVIDER_NAMES };

const environment = z.object({
  TEMPORAL_ADDRESS: z.string().min(1).optional(),
  TEMPORAL_NAMESPACE: z.string().min(1).default('default'),
  DURABLE_AGENT_TASK_QUEUE: z.string().min(1).default('durable-agent'),
  DURABLE_AGENT_TOOL_QUEUE: z.string().min(1).optional(),
  DURABLE_AGENT_MODEL: z.string().min(1).optional(),
  DURABLE_AGENT_PROVIDER: z.enum(PROVIDER_NAMES).optional(),
  OPENAI_BASE_URL: z.string().url().optional(),
});

/** Settings shared by the CLI and the worker, from the environment (flags override them). */
export interface Config {
  temporalAddress?: string;
  namespace: string;
  taskQueue: string;
  /** The task queue of the worker that owns the workspaces (file and shell tools run there). */
  toolTaskQueue?: string;
  model?: string;
  provider?: string;
  baseUrl?: string;
}

/** Parses the environment; a bad value is a usage error with the variable's name in it. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const blankAsUnset = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== ''));
  const parsed = environment.safeParse(blankAsUnset);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new ConfigError(`Invalid ${issue.path.join('.')}: ${issue.message}`);
  }
  const values = parsed.data;
  return {
    ...(values.TEMPORAL_ADDRESS ? { temporalAddress: values.TEMPORAL_ADDRESS } : {}),
    namespace: values.TEMPORAL_NAMESPACE,
    taskQueue: values.DURABLE_AGENT_TASK_QUEUE,
    ...(values.DURABLE_AGENT_TOOL_QUEUE ? { toolTaskQueue: values.DURABLE_AGENT_TOOL_QUEUE } : {}),
    ...(values.DURABLE_AGENT_MODEL ? { model: values.DURABLE_AGENT_MODEL } : {}),
    ...(values.DURABLE_AGENT_PROVIDER ? { provider: values.DURABLE_AGENT_PROVIDER } : {}),
    ...(values.OPENAI_BASE_URL ? { baseUrl: values.OPENAI_BASE_URL } : {}),
  };
}

/** A configuration or usage problem (CLI exit code 2). */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** The default task queue for the tools of workspaces on this host. */
export function hostToolQueue(taskQueue: string): string {
  return `${taskQueue}@${hostname()}`;
}
