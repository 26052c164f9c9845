// The one place the cluster's settings are written down: `npm run cluster` reads them, and the compose-agreement test
// checks that docker-compose.yml (loaded by the Compose specification's own loader) says the same. Each setting is an
// environment variable with a default, named as in the compose file, so one shell setting moves both.
import type { SearchAttributeType } from '@temporalio/common';
import { AGENT_SEARCH_ATTRIBUTES } from '../protocol/search-attributes.js';
import type { DirectoryEnvironment } from '../host/state-dir.js';

/** The Temporal server both run: the `temporalio/auto-setup` image tag, and the Go module `npm run cluster` builds. */
export const TEMPORAL_SERVER_VERSION = '1.29.1';

/** The Web UI both run: the `temporalio/ui` image tag, and the `ui-server` Go module `npm run cluster` builds. */
export const TEMPORAL_UI_VERSION = '2.42.1';

/** The NATS server both run: the `nats` image tag, and the Go module `npm run cluster` builds. */
export const NATS_SERVER_VERSION = '2.15.2';

/** The persistence plugin of both (`DB` of the auto-setup image, `pluginName` of the server's SQL stores). */
export const SQL_PLUGIN = 'postgres12';

/** The two databases: history and everything else, and visibility (what the search attributes query). */
export const DATABASES = { persistence: 'temporal', visibility: 'temporal_visibility' } as const;

/** The server's history shards: the auto-setup image's default, which a cluster cannot change after its first start. */
export const HISTORY_SHARDS = 4;

// The temporal CLI's name of each search attribute type (`temporal operator search-attribute create --type`).
const CLI_TYPE_NAMES: Readonly<Record<SearchAttributeType, string>> = {
  TEXT: 'Text',
  KEYWORD: 'Keyword',
  INT: 'Int',
  DOUBLE: 'Double',
  BOOL: 'Bool',
  DATETIME: 'Datetime',
  KEYWORD_LIST: 'KeywordList',
};

/** The agent search attributes both register, as `NAME:Type` in the temporal CLI's type names. */
export const SEARCH_ATTRIBUTE_TYPES: readonly string[] = Object.values(AGENT_SEARCH_ATTRIBUTES).map(
  ({ name, type }) => `${name}:${CLI_TYPE_NAMES[type]}`,
);

/**
 * Every setting the compose file and `npm run cluster` share: the variable's name and its default. The compose file
 * writes each as `${NAME:-default}`.
 */
export const CLUSTER_VARIABLES = {
  TEMPORAL_SERVER_VERSION,
  TEMPORAL_ADMIN_TOOLS_VERSION: TEMPORAL_SERVER_VERSION.split('.').slice(0, 2).join('.'),
  TEMPORAL_UI_VERSION,
  POSTGRES_VERSION: '16',
  POSTGRES_USER: 'temporal',
  POSTGRES_PASSWORD: 'temporal',
  TEMPORAL_NAMESPACE: 'default',
  TEMPORAL_PORT: '7233',
  TEMPORAL_UI_PORT: '8080',
  NATS_VERSION: NATS_SERVER_VERSION,
  NATS_PORT: '4222',
  DURABLE_AGENT_CODEC_PORT: '8234',
  DURABLE_AGENT_TASK_QUEUE: 'durable-agent',
  DURABLE_AGENT_TOOL_QUEUE: 'durable-agent-workspaces',
} as const;

/** A shared setting's name. */
export type ClusterVariable = keyof typeof CLUSTER_VARIABLES;

/** The value of a shared setting: the environment's when set and not empty, else the common default. */
export function clusterSetting(env: DirectoryEnvironment, name: ClusterVariable): string {
  const value = env[name];
  return value === undefined || value === '' ? CLUSTER_VARIABLES[name] : value;
}

/** How long a closed run's history is kept: the auto-setup image's default for the namespace it creates (24 h). */
export const NAMESPACE_RETENTION_SECONDS = 24 * 60 * 60;
