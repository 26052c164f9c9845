import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config.js';
import { storeFromEnv } from '../../src/store/store-from-env.js';

const defaults = { stateDir: '/var/lib/agent-state' };

describe('storeFromEnv', () => {
  it('uses a directory under the state dir by default, or DURABLE_AGENT_STORE_DIR', () => {
    expect(storeFromEnv({}, defaults).description).toBe(`directory ${path.join(defaults.stateDir, 'store')}`);
    expect(storeFromEnv({ DURABLE_AGENT_STORE: 'dir' }, defaults).description).toBe(
      `directory ${path.join(defaults.stateDir, 'store')}`,
    );
    expect(storeFromEnv({ DURABLE_AGENT_STORE: '', DURABLE_AGENT_STORE_DIR: '/srv/store' }, defaults).description).toBe(
      'directory /srv/store',
    );
  });

  it('reads s3://bucket/prefix, with the endpoint in the description', () => {
    expect(storeFromEnv({ DURABLE_AGENT_STORE: 's3://agent-content' }, defaults).description).toBe(
      's3://agent-content/',
    );
    expect(storeFromEnv({ DURABLE_AGENT_STORE: 's3://agent-content/team/runs' }, defaults).description).toBe(
      's3://agent-content/team/runs/',
    );
    expect(
      storeFromEnv(
        {
          DURABLE_AGENT_STORE: 's3://agent-content/runs/',
          DURABLE_AGENT_S3_ENDPOINT: 'http://minio:9000',
          AWS_ACCESS_KEY_ID: 'a',
          AWS_SECRET_ACCESS_KEY: 'b',
        },
        defaults,
      ).description,
    ).toBe('s3://agent-content/runs/ (http://minio:9000)');
  });

  it('reports bad settings as configuration errors naming the variable', () => {
    const cases: [NodeJS.ProcessEnv, RegExp][] = [
      [
        { DURABLE_AGENT_STORE: 'gcs://bucket' },
        /DURABLE_AGENT_STORE: expected "dir" or "s3:\/\/bucket\/prefix", got "gcs:\/\/bucket"/,
      ],
      [{ DURABLE_AGENT_STORE: 's3://No_Such' }, /bucket names are 3-63 lowercase/],
      [
        { DURABLE_AGENT_STORE: 's3://bucket', DURABLE_AGENT_S3_ENDPOINT: 'minio:9000' },
        /DURABLE_AGENT_S3_ENDPOINT: expected an http\(s\) URL/,
      ],
      [
        { DURABLE_AGENT_STORE: 's3://bucket', DURABLE_AGENT_S3_FORCE_PATH_STYLE: 'maybe' },
        /DURABLE_AGENT_S3_FORCE_PATH_STYLE: expected true or false/,
      ],
      [
        { DURABLE_AGENT_STORE: 's3://bucket', AWS_ACCESS_KEY_ID: 'only-half' },
        /AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY must be set together/,
      ],
    ];
    for (const [env, message] of cases) {
      expect(() => storeFromEnv(env, defaults)).toThrow(ConfigError);
      expect(() => storeFromEnv(env, defaults)).toThrow(message);
    }
  });
});
