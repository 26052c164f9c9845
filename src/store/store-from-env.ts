// Node: picks the content store from the environment, the same way in the worker and in the CLI, so both read and
// write the same objects.
import path from 'node:path';
import { ConfigError } from '../config.js';
import type { ContentStore } from './content-store.js';
import { createDirectoryStore } from './directory-store.js';
import type { S3StoreOptions } from './s3-store.js';
import { s3StoreDescription } from './s3-location.js';

// Bucket names as S3 accepts them: 3–63 lowercase letters, digits, dots and hyphens.
const S3_URL = /^s3:\/\/([a-z0-9][a-z0-9.-]{1,61}[a-z0-9])(?:\/(.*))?$/;

/**
 * `DURABLE_AGENT_STORE` unset or `dir`: a directory (`DURABLE_AGENT_STORE_DIR`, default `<stateDir>/store`);
 * `s3://bucket/prefix`: a bucket, with `DURABLE_AGENT_S3_ENDPOINT`, `AWS_REGION` and the AWS credential variables.
 */
export function storeFromEnv(env: NodeJS.ProcessEnv = process.env, defaults: { stateDir: string }): ContentStore {
  const setting = value(env, 'DURABLE_AGENT_STORE') ?? 'dir';
  if (setting === 'dir')
    return createDirectoryStore(value(env, 'DURABLE_AGENT_STORE_DIR') ?? path.join(defaults.stateDir, 'store'));
  const match = S3_URL.exec(setting);
  if (!match)
    throw new ConfigError(
      `Invalid DURABLE_AGENT_STORE: expected "dir" or "s3://bucket/prefix", got "${setting}"` +
        (setting.startsWith('s3://') ? ' (bucket names are 3-63 lowercase letters, digits, dots and hyphens)' : ''),
    );
  return deferredS3Store(s3Options(env, match[1]!, match[2] ?? ''));
}

/** The S3 store, its SDK loaded at the first request: the CLI and the worker load only the store they use. */
function deferredS3Store(options: S3StoreOptions): ContentStore {
  let loading: Promise<ContentStore> | undefined;
  const store = () => (loading ??= import('./s3-store.js').then(({ createS3Store }) => createS3Store(options)));
  return {
    description: s3StoreDescription(options),
    put: async (content) => (await store()).put(content),
    get: async (key) => (await store()).get(key),
    has: async (key) => (await store()).has(key),
    delete: async (key, deleteOptions) => (await store()).delete(key, deleteOptions),
    async *list() {
      yield* (await store()).list();
    },
  };
}

function s3Options(env: NodeJS.ProcessEnv, bucket: string, prefix: string): S3StoreOptions {
  const endpoint = value(env, 'DURABLE_AGENT_S3_ENDPOINT');
  if (endpoint !== undefined && !/^https?:\/\/[^/]+/.test(endpoint))
    throw new ConfigError(`Invalid DURABLE_AGENT_S3_ENDPOINT: expected an http(s) URL, got "${endpoint}"`);
  // S3-compatible servers rarely resolve bucket subdomains, so an endpoint implies path-style addressing.
  const forcePathStyle = booleanValue(env, 'DURABLE_AGENT_S3_FORCE_PATH_STYLE') ?? endpoint !== undefined;
  const accessKeyId = value(env, 'AWS_ACCESS_KEY_ID');
  const secretAccessKey = value(env, 'AWS_SECRET_ACCESS_KEY');
  if ((accessKeyId === undefined) !== (secretAccessKey === undefined))
    throw new ConfigError(
      'AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY must be set together (or neither, for the AWS credential chain)',
    );
  const sessionToken = value(env, 'AWS_SESSION_TOKEN');
  return {
    bucket,
    prefix,
    region: value(env, 'AWS_REGION') ?? value(env, 'AWS_DEFAULT_REGION') ?? 'us-east-1',
    forcePathStyle,
    ...(endpoint ? { endpoint } : {}),
    ...(accessKeyId && secretAccessKey
      ? { credentials: { accessKeyId, secretAccessKey, ...(sessionToken ? { sessionToken } : {}) } }
      : {}),
  };
}

/** A variable's value; blank counts as unset, as in loadConfig. */
function value(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const raw = env[name]?.trim();
  return raw ? raw : undefined;
}

function booleanValue(env: NodeJS.ProcessEnv, name: string): boolean | undefined {
  const raw = value(env, name)?.toLowerCase();
  if (raw === undefined) return undefined;
  if (raw === 'true' || raw === '1') return true;
  if (raw === 'false' || raw === '0') return false;
  throw new ConfigError(`Invalid ${name}: expected true or false, got "${env[name]}"`);
}
