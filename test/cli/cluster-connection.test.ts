// A cluster's connection settings come from Temporal's own client configuration (@temporalio/envconfig): variables and
// the temporal.toml profile the `temporal` CLI reads.
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { clusterConnectionOptions } from '../../src/cluster/connection.js';
import { ConfigError } from '../../src/config.js';

// No file from the machine running the tests: a missing TEMPORAL_CONFIG_FILE counts as no file.
const NO_FILE = { TEMPORAL_CONFIG_FILE: '/nonexistent/temporal.toml' };

describe('clusterConnectionOptions', () => {
  it('is the address alone when nothing else is configured', () => {
    expect(clusterConnectionOptions('temporal.internal:7233', NO_FILE)).toEqual({ address: 'temporal.internal:7233' });
  });

  it('an API key turns TLS on and travels with gRPC metadata (Temporal Cloud)', () => {
    const options = clusterConnectionOptions('ns.acct.tmprl.cloud:7233', {
      ...NO_FILE,
      TEMPORAL_API_KEY: 'secret-key',
      TEMPORAL_GRPC_META_X_TEAM: 'payments',
    });
    expect(options).toMatchObject({ address: 'ns.acct.tmprl.cloud:7233', apiKey: 'secret-key', tls: true });
    expect(options.metadata).toEqual({ 'x-team': 'payments' });
  });

  it('reads mTLS certificates from the paths the variables name', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tls-'));
    await writeFile(join(dir, 'client.pem'), 'CERT');
    await writeFile(join(dir, 'client.key'), 'KEY');
    const options = clusterConnectionOptions('temporal.internal:7233', {
      ...NO_FILE,
      TEMPORAL_TLS_CLIENT_CERT_PATH: join(dir, 'client.pem'),
      TEMPORAL_TLS_CLIENT_KEY_PATH: join(dir, 'client.key'),
      TEMPORAL_TLS_SERVER_NAME: 'temporal.internal',
    });
    expect(options.tls).toMatchObject({
      serverNameOverride: 'temporal.internal',
      clientCertPair: { crt: new Uint8Array(Buffer.from('CERT')), key: new Uint8Array(Buffer.from('KEY')) },
    });
  });

  it("takes a profile of the temporal CLI's configuration file; the address given wins over the profile's", async () => {
    const file = join(await mkdtemp(join(tmpdir(), 'toml-')), 'temporal.toml');
    await writeFile(file, ['[profile.prod]', 'address = "elsewhere:7233"', 'api_key = "from-file"', ''].join('\n'));
    const options = clusterConnectionOptions('here:7233', { TEMPORAL_CONFIG_FILE: file, TEMPORAL_PROFILE: 'prod' });
    expect(options).toMatchObject({ address: 'here:7233', apiKey: 'from-file', tls: true });
  });

  it('a broken configuration file is a configuration error that says where to look', async () => {
    const file = join(await mkdtemp(join(tmpdir(), 'toml-')), 'temporal.toml');
    await writeFile(file, '[profile.default\naddress = ');
    expect(() => clusterConnectionOptions('here:7233', { TEMPORAL_CONFIG_FILE: file })).toThrow(ConfigError);
    expect(() => clusterConnectionOptions('here:7233', { TEMPORAL_CONFIG_FILE: file })).toThrow(/temporal\.toml/);
  });
});
