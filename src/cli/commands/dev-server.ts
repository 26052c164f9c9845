// Node: `dev-server`: starts, inspects or stops the embedded Temporal server, its worker and codec endpoint.
import { devServerStatus, ensureDevServer, ensureDevWorker, stopDevServer } from '../../dev-server/index.js';
import type { DevServerStatus } from '../../dev-server/index.js';
import { workerProcessCommand } from '../connect.js';
import { ensureEmbeddedCodec } from '../embedded-codec.js';
import { EXIT } from '../exit-codes.js';
import { visibleText } from '../../core/terminal-text.js';
import { log, out, outJson } from '../output.js';
import { parseCommandLine } from '../option-table.js';
import { devServerOptions } from '../options/services.js';

function codecLine(codec: DevServerStatus['codec']): string {
  if (!codec.url) return 'none (the Web UI was started without one)';
  return `${visibleText(codec.url)} ${codec.running ? `running (pid ${codec.pid})` : 'not running'}`;
}

/** `dev-server [--status [--json] | --stop]`. */
export async function devServerCommand(argv: string[]): Promise<number> {
  const { values } = parseCommandLine(devServerOptions, argv);
  if (values.stop) {
    await stopDevServer();
    log('dev server, worker and codec endpoint stopped');
    return EXIT.finished;
  }
  if (!values.status) {
    const server = await ensureDevServer();
    await ensureDevWorker({ command: workerProcessCommand(), env: process.env });
    await ensureEmbeddedCodec(server);
  }
  const status = await devServerStatus();
  if (values.json) outJson(status);
  else {
    // The addresses are read back from the state directory's records, written by the processes themselves.
    out(
      [
        `address    ${visibleText(status.address)} (namespace ${visibleText(status.namespace)})`,
        `web ui     ${visibleText(status.uiUrl)}`,
        ...(status.httpUrl ? [`http api   ${visibleText(status.httpUrl)}`] : []),
        `server     ${status.server.running ? `running (pid ${status.server.pid})` : 'not running'}`,
        `worker     ${status.worker.running ? `running (pid ${status.worker.pid})` : 'not running'}`,
        `codec      ${codecLine(status.codec)}`,
      ].join('\n') + '\n',
    );
  }
  return EXIT.finished;
}
