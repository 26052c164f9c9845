// Which live channel an environment names: the state directory's files by default, none for `off`, the NATS
// transport for nats:// and tls:// (a clear error where it is not installed), and a usage error for anything else.
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config.js';
import { liveChannelFromEnv } from '../../src/live/channel-from-env.js';

describe('liveChannelFromEnv', () => {
  it('unset: the files of the state directory; off: none', async () => {
    const stateDir = await mkdtemp(path.join(tmpdir(), 'live-env-'));
    try {
      const channel = await liveChannelFromEnv({ DURABLE_AGENT_STATE_DIR: stateDir }, { role: 'cli' });
      const publisher = channel!.publisher({
        workflowId: 'w',
        runId: 'r',
        activityId: '1',
        step: 1,
        attempt: 1,
        purpose: 'step',
      });
      publisher.publish({ kind: 'start', model: 'm' });
      await publisher.close();
      expect((await stat(path.join(stateDir, 'live'))).isDirectory()).toBe(true);
      await channel!.close();
      expect(await liveChannelFromEnv({ DURABLE_AGENT_LIVE_URL: 'off' }, { role: 'cli' })).toBeUndefined();
    } finally {
      await rm(stateDir, { recursive: true, force: true });
    }
  });

  it('refuses a value that names no transport, without echoing it', async () => {
    const error = await liveChannelFromEnv(
      { DURABLE_AGENT_LIVE_URL: 'redis://user:secret@host' },
      { role: 'cli' },
    ).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).not.toContain('secret');
  });
});
