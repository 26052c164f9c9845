// The CLI on a cluster takes TLS and API keys from Temporal's client configuration, and an unreachable cluster is one
// line an operator can act on, not a stack trace.
import { describe, expect, it } from 'vitest';
import { cliRunner } from '../support/cli.js';
import { temporalAddress } from '../support/harness.js';

const cli = cliRunner({ taskQueue: 'cluster-connection' });

describe('connecting to a cluster', () => {
  it('reaches the test server with the address alone', async () => {
    const result = await cli(['list', '--limit', '1'], { TEMPORAL_CONFIG_FILE: '/nonexistent/temporal.toml' });
    expect(result.exitCode).toBe(0);
  });

  it('speaks TLS when TEMPORAL_TLS says so (the plaintext test server then cannot answer), in one line', async () => {
    const result = await cli(['list', '--limit', '1'], {
      TEMPORAL_TLS: 'true',
      TEMPORAL_CONFIG_FILE: '/nonexistent/temporal.toml',
    });
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain(`error: cannot reach Temporal at ${temporalAddress()} (TEMPORAL_ADDRESS, TLS)`);
    expect(result.stderr).not.toMatch(/\n\s+at /);
  }, 60_000);

  it('names the address and that an API key was sent', async () => {
    const result = await cli(['status', 'some-run'], {
      TEMPORAL_ADDRESS: '127.0.0.1:1',
      TEMPORAL_API_KEY: 'sk-secret-123',
      TEMPORAL_CONFIG_FILE: '/nonexistent/temporal.toml',
    });
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain('error: cannot reach Temporal at 127.0.0.1:1 (TEMPORAL_ADDRESS, TLS, an API key)');
    expect(result.stderr).not.toContain('sk-secret-123');
  }, 60_000);
});
