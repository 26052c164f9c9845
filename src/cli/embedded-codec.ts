// Node: the embedded Web UI's codec endpoint, checked (and started when it is not running) by the commands that use
// the embedded server. Apart from connect.ts: checking it needs no Temporal client.
import type { DevServerInfo } from '../dev-server/index.js';
import { visibleLines } from '../core/terminal-text.js';
import { color, log } from './output.js';
import { codecProcessCommand } from './worker-command.js';

/** Starts the embedded Web UI's codec endpoint; when it cannot start, the UI only loses readable payloads, so it warns. */
export async function ensureEmbeddedCodec(server: Pick<DevServerInfo, 'codecUrl' | 'uiUrl'>): Promise<void> {
  if (!server.codecUrl) return;
  try {
    const { ensureDevCodec } = await import('../dev-server/background.js');
    await ensureDevCodec({
      command: codecProcessCommand(server),
      url: server.codecUrl,
      env: process.env,
    });
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    log(
      color.yellow(
        `warning: the Web UI's codec endpoint is not running, so the UI shows content keys: ${visibleLines(reason)}`,
      ),
    );
  }
}
