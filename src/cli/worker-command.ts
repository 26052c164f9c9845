// Node: the command lines of the embedded server's companions (background worker, Web UI codec endpoint): this
// installation's bin, so a worker started by another installation is told apart and replaced.
import { fileURLToPath } from 'node:url';
import type { DevServerInfo } from '../dev-server/index.js';
import { uiOrigins } from '../dev-server/ui-origins.js';

const binPath = fileURLToPath(new URL('../../bin/durable-agent.js', import.meta.url));

/** The command line that starts a worker process of this installation. */
export function workerProcessCommand(): string[] {
  return [process.execPath, binPath, 'worker'];
}

/** The command line that starts the embedded Web UI's codec endpoint, allowing the UI's origins. */
export function codecProcessCommand(server: Pick<DevServerInfo, 'codecUrl' | 'uiUrl'>): string[] {
  const url = new URL(server.codecUrl);
  const origins = uiOrigins(server.uiUrl).flatMap((origin) => ['--cors-origin', origin]);
  return [process.execPath, binPath, 'codec-server', '--host', url.hostname, '--port', url.port, ...origins];
}
