// The browser origins of a Web UI, which the codec endpoint must allow: the UI calls it from the page, not the server.
import type { DirectoryEnvironment } from '../host/state-dir.js';

/**
 * The origin a browser shows the UI at `uiUrl` under, exactly: not a `localhost` twin of `127.0.0.1`, since a browser
 * may resolve `localhost` to `::1`, where this UI does not listen and another local user's server could.
 */
export function uiOrigins(uiUrl: string): string[] {
  return [new URL(uiUrl).origin];
}

/** `TEMPORAL_UI_URL`'s origin, else the embedded dev server's UI (`DURABLE_AGENT_DEV_UI_PORT`, default 8233). */
export function defaultUiOrigins(env: DirectoryEnvironment): string[] {
  if (env.TEMPORAL_UI_URL) return uiOrigins(env.TEMPORAL_UI_URL);
  return uiOrigins(`http://127.0.0.1:${env.DURABLE_AGENT_DEV_UI_PORT || 8233}`);
}
