// Node: `node --import tsx src/scripted-model/main.ts --script FILE [--port N] [--host H]`.
// Prints the base URL on stdout, logs served turns on stderr, and runs until SIGINT/SIGTERM.
import { parseArgs } from 'node:util';
import { startScriptedModelServer } from './server.js';

const usage = 'usage: scripted-server-main --script FILE [--port N] [--host 127.0.0.1]';

async function main(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      script: { type: 'string' },
      port: { type: 'string' },
      host: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
  });
  if (values.help) {
    console.log(usage);
    return;
  }
  const port = values.port === undefined ? 0 : Number(values.port);
  if (!values.script || !Number.isInteger(port) || port < 0 || port > 65_535) {
    console.error(usage);
    process.exitCode = 2;
    return;
  }
  const server = await startScriptedModelServer({
    script: values.script,
    port,
    ...(values.host ? { host: values.host } : {}),
    log: (line) => console.error(line),
  });
  console.log(server.url);
  const stop = (): void => {
    console.error(
      `scripted model: stopping with ${server.remaining()} turn(s) unserved after ${server.requests.length} request(s)`,
    );
    void server.close();
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main(process.argv.slice(2)).catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : String(error));
  process.exitCode = 1;
});
