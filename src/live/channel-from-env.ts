// Node: the live channel a worker or a CLI uses, from its environment: DURABLE_AGENT_LIVE_URL `nats://…` or `tls://…`
// is a NATS JetStream server (a cluster with workers on other hosts); unset, the files of the state directory (one
// host); `off`, none. The worker and the CLI read the same variable, so both ends meet.
import { stateDir } from '../host/state-dir.js';
import { ConfigError } from '../config.js';
import { maxModelOutputBytesFromEnv } from '../providers/output-limit.js';
import type { LiveChannel } from './live-channel.js';
import { createFileLiveChannel } from './file-channel.js';

/** The variable naming the transport. */
export const LIVE_URL_VARIABLE = 'DURABLE_AGENT_LIVE_URL';

/** Options of `liveChannelFromEnv`. */
export interface LiveChannelSettings {
  /** The worker's channel sweeps old files and warns on its log. */
  role: 'worker' | 'cli';
  warn?: (line: string) => void;
}

/** The channel `env` names; undefined when live output is off. */
export async function liveChannelFromEnv(
  env: Readonly<Record<string, string | undefined>>,
  settings: LiveChannelSettings,
): Promise<LiveChannel | undefined> {
  const url = env[LIVE_URL_VARIABLE]?.trim() ?? '';
  if (url === 'off') return undefined;
  if (url === '') {
    return createFileLiveChannel({
      stateDir: stateDir(env),
      maxAttemptBytes: maxModelOutputBytesFromEnv(env as NodeJS.ProcessEnv),
      sweep: settings.role === 'worker',
      ...(settings.warn ? { warn: settings.warn } : {}),
    });
  }
  if (/^(nats|tls):\/\//.test(url)) return natsChannel(env);
  // The value is not echoed: a mistyped URL may still carry a credential.
  throw new ConfigError(`${LIVE_URL_VARIABLE} must be nats://HOST:PORT, tls://HOST:PORT or off`);
}

// The NATS transport is loaded only when named, so a single host never loads its client.
async function natsChannel(env: Readonly<Record<string, string | undefined>>): Promise<LiveChannel> {
  const { natsLiveChannelFromEnv } = await import('./nats-from-env.js');
  return natsLiveChannelFromEnv(env);
}
