// Node: the NATS live channel a process's environment describes. DURABLE_AGENT_LIVE_URL names the server(s)
// (`nats://host:port` or `tls://host:port`, comma-separated); the credential is a token (DURABLE_AGENT_LIVE_TOKEN, or
// DURABLE_AGENT_LIVE_TOKEN_FILE naming a file that holds it, so it need not sit in the environment of every shell) or
// a user and password (DURABLE_AGENT_LIVE_USER, DURABLE_AGENT_LIVE_PASSWORD); DURABLE_AGENT_LIVE_CA is the PEM file
// of the authority the server's certificate must chain to, and DURABLE_AGENT_LIVE_CERT/_KEY a client certificate
// for a server that asks for one.
import fs from 'node:fs';
import { ConfigError } from '../config.js';
import type { LiveChannel } from './live-channel.js';
import { createNatsLiveChannel } from './nats-channel.js';
import type { NatsLiveChannelOptions } from './nats-channel.js';

/** The variables this reads. */
export const LIVE_NATS_VARIABLES = {
  url: 'DURABLE_AGENT_LIVE_URL',
  token: 'DURABLE_AGENT_LIVE_TOKEN',
  tokenFile: 'DURABLE_AGENT_LIVE_TOKEN_FILE',
  user: 'DURABLE_AGENT_LIVE_USER',
  password: 'DURABLE_AGENT_LIVE_PASSWORD',
  ca: 'DURABLE_AGENT_LIVE_CA',
  cert: 'DURABLE_AGENT_LIVE_CERT',
  key: 'DURABLE_AGENT_LIVE_KEY',
} as const;

type Environment = Readonly<Record<string, string | undefined>>;

/** True when DURABLE_AGENT_LIVE_URL names a NATS server. */
export function isNatsLiveUrl(url: string | undefined): boolean {
  return url !== undefined && /^(nats|tls):\/\//.test(url.trim());
}

/** The channel's options from `env`; throws a ConfigError naming the variable that is wrong. */
export function natsLiveOptionsFromEnv(env: Environment): NatsLiveChannelOptions {
  const v = LIVE_NATS_VARIABLES;
  const url = env[v.url]?.trim() ?? '';
  const servers = url.split(',').map((server) => server.trim());
  for (const server of servers) {
    let parsed: URL | undefined;
    try {
      parsed = new URL(server);
    } catch {
      parsed = undefined;
    }
    if (!parsed || !/^(nats|tls):$/.test(parsed.protocol) || !parsed.hostname || parsed.username || parsed.password)
      throw new ConfigError(
        `${v.url}=${url}: expected nats://host:port or tls://host:port (comma-separated for several servers, ` +
          `the credential in ${v.token}, ${v.tokenFile} or ${v.user}/${v.password}, not in the address).`,
      );
  }
  const options: NatsLiveChannelOptions = { servers };
  const tokenFile = env[v.tokenFile];
  if (env[v.token]) options.token = env[v.token];
  else if (tokenFile) {
    try {
      options.token = fs.readFileSync(tokenFile, 'utf8').trim();
    } catch (error) {
      throw new ConfigError(`${v.tokenFile}=${tokenFile} cannot be read: ${(error as Error).message}`);
    }
  }
  if (env[v.user]) {
    options.user = env[v.user];
    options.password = env[v.password] ?? '';
  }
  const tls = {
    ...(env[v.ca] ? { caFile: env[v.ca] } : {}),
    ...(env[v.cert] ? { certFile: env[v.cert] } : {}),
    ...(env[v.key] ? { keyFile: env[v.key] } : {}),
  };
  if (Boolean(tls.certFile) !== Boolean(tls.keyFile))
    throw new ConfigError(`${v.cert} and ${v.key} go together: a client certificate and its key.`);
  if (Object.keys(tls).length > 0) options.tls = tls;
  return options;
}

/** The NATS live channel `env` describes (connecting on first use, so a server that is down does not stop a start). */
export function natsLiveChannelFromEnv(env: Environment): LiveChannel {
  return createNatsLiveChannel(natsLiveOptionsFromEnv(env));
}
