// Node: `codec-server`: the Web UI's codec endpoint over the content store, for the operator only.
import { randomBytes } from 'node:crypto';
import net from 'node:net';
import { isLoopbackAddress } from '../../store/loopback-peer.js';
import { startCodecServer } from '../../store/codec-server.js';
import { storeFromEnv } from '../../store/store-from-env.js';
import { EXIT, UsageError } from '../exit-codes.js';
import { log } from '../output.js';
import { stateDir } from '../../host/state-dir.js';
import { defaultUiOrigins } from '../../dev-server/ui-origins.js';
import { parseCommandLine } from '../option-table.js';
import { codecServerOptions } from '../options/services.js';

/**
 * `codec-server [--port 8234] [--host 127.0.0.1] [--cors-origin URL]… [--allowed-host NAME:PORT]…`: runs until
 * SIGINT/SIGTERM. Callers from another machine need DURABLE_AGENT_CODEC_TOKEN; one listening beyond loopback without
 * it makes one up and logs its sign-in link.
 */
export async function codecServerCommand(argv: string[]): Promise<number> {
  const { values } = parseCommandLine(codecServerOptions, argv);
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65_535)
    throw new UsageError(`--port ${values.port} is not a port number`);
  const corsOrigins = (values['cors-origin'] ?? defaultUiOrigins(process.env)).map(origin);
  const allowedHosts = values['allowed-host']?.map(allowedHost);
  const everywhere = values.host === '0.0.0.0' || values.host === '::';
  if (everywhere && !allowedHosts)
    throw new UsageError(
      `--host ${values.host} needs --allowed-host NAME:PORT for each name a browser reaches this endpoint by`,
    );
  const token =
    process.env.DURABLE_AGENT_CODEC_TOKEN ||
    (isLoopbackAddress(values.host) ? undefined : randomBytes(24).toString('base64url'));
  const store = storeFromEnv(process.env, { stateDir: stateDir() });

  const server = await startCodecServer({
    store,
    port,
    host: values.host,
    corsOrigins,
    ...(allowedHosts ? { allowedHosts } : {}),
    ...(token ? { token } : {}),
    log,
  });
  log(
    `codec endpoint: ${server.url} store=${store.description} cors-origins=${corsOrigins.join(',')} pid=${process.pid}`,
  );
  if (token && !process.env.DURABLE_AGENT_CODEC_TOKEN) {
    const [name] = allowedHosts ?? [new URL(server.url).host];
    log(`codec endpoint: sign in once in the browser: http://${name}/login?token=${token}`);
  }
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await server.close();
  return EXIT.finished;
}

/** A browser sends `http://host:port` with no path or trailing slash; a URL given with one still matches. */
function origin(value: string): string {
  if (value === '*')
    throw new UsageError('--cors-origin * would let any web page read the store; name the Web UI’s origin');
  try {
    return new URL(value).origin;
  } catch {
    throw new UsageError(`--cors-origin ${value} is not a URL (e.g. http://localhost:8080)`);
  }
}

/** `name:port` as a browser sends it in Host. */
function allowedHost(value: string): string {
  const match = /^(\[[0-9a-f:.]+\]|[a-z0-9.-]+):(\d{1,5})$/i.exec(value);
  if (!match || (match[1]!.startsWith('[') && !net.isIPv6(match[1]!.slice(1, -1))))
    throw new UsageError(`--allowed-host ${value} is not NAME:PORT (e.g. localhost:8234)`);
  return value.toLowerCase();
}
