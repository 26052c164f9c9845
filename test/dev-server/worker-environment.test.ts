// The environment the embedded background worker and codec endpoint are started with, and the digest that replaces
// them when it changes: a defined set of variables, never the caller's whole environment.
import { describe, expect, it } from 'vitest';
import {
  codecConfiguration,
  codecEnvironment,
  workerConfiguration,
  workerEnvironment,
} from '../../src/dev-server/worker-environment.js';

// A user's shell: what programs need, the agent's settings, and secrets meant for other tools.
const shell = {
  PATH: '/usr/local/bin:/usr/bin',
  HOME: '/home/dev',
  USER: 'dev',
  LANG: 'en_US.UTF-8',
  LC_ALL: 'C.UTF-8',
  TZ: 'Europe/Paris',
  OPENAI_API_KEY: 'sk-worker',
  OPENAI_BASE_URL: 'http://127.0.0.1:8000/v1',
  ANTHROPIC_API_KEY: 'sk-ant-worker',
  ANTHROPIC_BASE_URL: 'http://127.0.0.1:8001',
  TEMPORAL_NAMESPACE: 'default',
  DURABLE_AGENT_MODEL: 'm-1',
  DURABLE_AGENT_KEY_ORIGINS: 'https://models.example',
  DURABLE_AGENT_SANDBOX: 'bwrap',
  AGENT_MAX_TOOL_RESULT_BYTES: '40000',
  PGPASSWORD: 'pg-secret',
  GITHUB_PAT: 'ghp_secret',
  DATABASE_URL: 'postgres://u:pw@db/x',
  SSH_AUTH_SOCK: '/tmp/agent.sock',
  AWS_ACCESS_KEY_ID: 'AKIA-other-tool',
  AWS_SECRET_ACCESS_KEY: 'aws-secret',
  NODE_OPTIONS: '--inspect=0.0.0.0:9229',
  TEMPORAL_ADDRESS: 'elsewhere:7233',
};

describe('the background worker environment', () => {
  it('holds what it needs to run and the settings it reads, and none of the shell secrets', () => {
    expect(workerEnvironment(shell)).toEqual({
      PATH: '/usr/local/bin:/usr/bin',
      HOME: '/home/dev',
      USER: 'dev',
      LANG: 'en_US.UTF-8',
      LC_ALL: 'C.UTF-8',
      TZ: 'Europe/Paris',
      OPENAI_API_KEY: 'sk-worker',
      OPENAI_BASE_URL: 'http://127.0.0.1:8000/v1',
      ANTHROPIC_API_KEY: 'sk-ant-worker',
      ANTHROPIC_BASE_URL: 'http://127.0.0.1:8001',
      TEMPORAL_NAMESPACE: 'default',
      DURABLE_AGENT_MODEL: 'm-1',
      DURABLE_AGENT_KEY_ORIGINS: 'https://models.example',
      DURABLE_AGENT_SANDBOX: 'bwrap',
      AGENT_MAX_TOOL_RESULT_BYTES: '40000',
    });
  });

  it('passes the variables DURABLE_AGENT_ENV_PASS names, which the worker hands on to commands', () => {
    const environment = workerEnvironment({ ...shell, DURABLE_AGENT_ENV_PASS: 'GITHUB_PAT, DATABASE_URL' });
    expect(environment).toMatchObject({ GITHUB_PAT: 'ghp_secret', DATABASE_URL: 'postgres://u:pw@db/x' });
    expect(environment).not.toHaveProperty('PGPASSWORD');
  });

  it('gives the AWS variables only to a worker whose content store is a bucket', () => {
    const s3 = { ...shell, DURABLE_AGENT_STORE: 's3://bucket/agent', AWS_REGION: 'eu-west-3', AWS_PROFILE: 'agent' };
    expect(workerEnvironment(s3)).toMatchObject({
      DURABLE_AGENT_STORE: 's3://bucket/agent',
      AWS_ACCESS_KEY_ID: 'AKIA-other-tool',
      AWS_SECRET_ACCESS_KEY: 'aws-secret',
      AWS_REGION: 'eu-west-3',
      AWS_PROFILE: 'agent',
    });
    expect(
      Object.keys(workerEnvironment({ ...s3, DURABLE_AGENT_STORE: 'dir' })).filter((name) => name.startsWith('AWS_')),
    ).toEqual([]);
  });
});

describe('the background worker configuration digest', () => {
  it('changes with a setting, a passed name or its value, and never contains a value', () => {
    const base = workerConfiguration(shell);
    expect(base).toMatch(/^[0-9a-f]{64}$/);
    expect(workerConfiguration({ ...shell, OPENAI_API_KEY: 'sk-other' })).not.toBe(base);
    expect(workerConfiguration({ ...shell, DURABLE_AGENT_SANDBOX: 'none' })).not.toBe(base);
    const passing = { ...shell, DURABLE_AGENT_ENV_PASS: 'GITHUB_PAT' };
    expect(workerConfiguration(passing)).not.toBe(base);
    expect(workerConfiguration({ ...passing, GITHUB_PAT: 'ghp_rotated' })).not.toBe(workerConfiguration(passing));
  });

  it('ignores what the worker does not read, so shells that differ only there share one worker', () => {
    const base = workerConfiguration(shell);
    expect(workerConfiguration({ ...shell, PGPASSWORD: 'other', GITHUB_PAT: 'other', PATH: '/bin' })).toBe(base);
    expect(
      workerConfiguration({ ...shell, DURABLE_AGENT_STATE_DIR: 'state', DURABLE_AGENT_PRICES: '/tmp/prices.json' }),
    ).toBe(base);
  });
});

describe('the codec endpoint environment', () => {
  it('holds the store settings and no model key or shell secret', () => {
    const environment = codecEnvironment({ ...shell, DURABLE_AGENT_STORE: 's3://bucket/agent' });
    expect(environment).toMatchObject({
      PATH: shell.PATH,
      DURABLE_AGENT_STORE: 's3://bucket/agent',
      AWS_SECRET_ACCESS_KEY: 'aws-secret',
    });
    for (const name of ['OPENAI_API_KEY', 'PGPASSWORD', 'GITHUB_PAT', 'NODE_OPTIONS'])
      expect(environment).not.toHaveProperty(name);
    expect(codecConfiguration({ ...shell, OPENAI_API_KEY: 'sk-other' })).toBe(codecConfiguration(shell));
    expect(codecConfiguration({ ...shell, DURABLE_AGENT_STORE_DIR: '/srv/store' })).not.toBe(codecConfiguration(shell));
  });
});
