// The NATS server's configuration and credential: JetStream on file storage, one token every client presents, TLS with
// the cluster's certificates. Shared by `npm run cluster` and the tests that start a NATS server of their own.
import { randomBytes } from 'node:crypto';
import fsp from 'node:fs/promises';

/** What one NATS server is configured with. */
export interface NatsServerSettings {
  host: string;
  port: number;
  /** Where JetStream keeps its streams (kept across restarts). */
  storeDir: string;
  token: string;
  /** The server's certificate and key; clients check it against the cluster's authority. */
  tls?: { certFile: string; keyFile: string };
}

/** nats-server's configuration file format; strings written as JSON strings, which it reads the same. */
export function natsServerConfig(settings: NatsServerSettings): string {
  const quote = (value: string) => JSON.stringify(value);
  return [
    `host: ${quote(settings.host)}`,
    `port: ${settings.port}`,
    // Clients send nothing bigger than one coalesced batch; the stream caps messages at 1 MiB.
    'max_payload: 1MB',
    `jetstream {\n  store_dir: ${quote(settings.storeDir)}\n  max_memory_store: 64MB\n  max_file_store: 2GB\n}`,
    `authorization {\n  token: ${quote(settings.token)}\n}`,
    ...(settings.tls
      ? [`tls {\n  cert_file: ${quote(settings.tls.certFile)}\n  key_file: ${quote(settings.tls.keyFile)}\n}`]
      : []),
    '',
  ].join('\n');
}

/** The token in `file`, made (32 random bytes, hex, mode 0600) when the file does not exist yet. */
export async function ensureNatsToken(file: string): Promise<string> {
  try {
    return (await fsp.readFile(file, 'utf8')).trim();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const token = randomBytes(32).toString('hex');
  // `wx`: two starts racing never leave two different tokens; the loser reads the winner's.
  await fsp.writeFile(file, `${token}\n`, { mode: 0o600, flag: 'wx' }).catch(async (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EEXIST') throw error;
  });
  return (await fsp.readFile(file, 'utf8')).trim();
}
