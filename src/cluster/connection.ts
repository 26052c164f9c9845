// Node: how the CLI and a worker reach a Temporal cluster that is not the embedded server: the address they were given,
// plus the TLS settings, API key and gRPC metadata of Temporal's own client configuration — the TEMPORAL_TLS_*,
// TEMPORAL_API_KEY, TEMPORAL_GRPC_META_* and TEMPORAL_PROFILE variables and the temporal.toml file the `temporal` CLI
// reads — through @temporalio/envconfig, so Temporal Cloud and mTLS clusters need no settings of this project's own.
import { loadClientConnectConfig } from '@temporalio/envconfig';
import type { NativeConnectionOptions } from '@temporalio/worker';
import { ConfigError } from '../config.js';

/** Connection options for the cluster at `address`, from Temporal's client configuration in `env`. */
export function clusterConnectionOptions(
  address: string,
  env: Readonly<Record<string, string | undefined>>,
): NativeConnectionOptions {
  let loaded: ReturnType<typeof loadClientConnectConfig>;
  try {
    loaded = loadClientConnectConfig({ overrideEnvVars: definedOnly(env) });
  } catch (error) {
    throw new ConfigError(
      `Temporal client configuration (TEMPORAL_* variables, TEMPORAL_CONFIG_FILE or temporal.toml): ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  const { tls, apiKey, metadata } = loaded.connectionOptions;
  return {
    address,
    ...(tls !== undefined ? { tls } : {}),
    ...(apiKey !== undefined ? { apiKey } : {}),
    ...(metadata !== undefined ? { metadata } : {}),
  };
}

function definedOnly(env: Readonly<Record<string, string | undefined>>): Record<string, string> {
  return Object.fromEntries(Object.entries(env).filter((entry): entry is [string, string] => entry[1] !== undefined));
}
