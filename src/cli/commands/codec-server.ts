import { parseArgs } from 'node:util';
import { DEFAULT_CODEC_PORT, startCodecServer } from '../../store/codec-server.js';
import { storeFromEnv } from '../../store/store-from-env.js';
import { EXIT, UsageError } from '../exit-codes.js';
import { log } from '../output.js';
import { stateDir } from '../state-dir.js';
import { defaultUiOrigins } from '../ui-origins.js';

/** `codec-server [--port 8234] [--host 127.0.0.1] [--cors-origin URL]…`: runs until SIGINT/SIGTERM. */
export async function codecServerCommand(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      port: { type: 'string', default: String(DEFAULT_CODEC_PORT) },
      host: { type: 'string', default: '127.0.0.1' },
      'cors-origin': { type: 'string', multiple: true },
    },
  });
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65_535)
    throw new UsageError(`--port ${values.port} is not a port number`);
  const corsOrigins = (values['cors-origin'] ?? defaultUiOrigins(process.env)).map(origin);
  const store = storeFromEnv(process.env, { stateDir: stateDir() });

  const server = await startCodecServer({ store, port, host: values.host, corsOrigins, log });
  log(
    `codec endpoint: ${server.url} store=${store.description} cors-origins=${corsOrigins.join(',')} pid=${process.pid}`,
  );
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await server.close();
  return EXIT.finished;
}

/** A browser sends `http://host:port` with no path or trailing slash; a URL given with one still matches. */
function origin(value: string): string {
  if (value === '*') return value;
  try {
    return new URL(value).origin;
  } catch {
    throw new UsageError(`--cors-origin ${value} is not a URL (e.g. http://localhost:8080) or *`);
  }
}
