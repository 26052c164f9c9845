// The browser origins of a Web UI, which the codec endpoint must allow: the UI calls it from the page, not the server.
import type { DirectoryEnvironment } from './state-dir.js';

/** The origins a browser may show the UI at `uiUrl` under: loopback is reached as 127.0.0.1 and as localhost alike. */
export function uiOrigins(uiUrl: string): string[] {
  const url = new URL(uiUrl);
  const origins = [url.origin];
  if (url.hostname === '127.0.0.1' || url.hostname === 'localhost') {
    const twin = new URL(url.origin);
    twin.hostname = url.hostname === 'localhost' ? '127.0.0.1' : 'localhost';
    origins.push(twin.origin);
  }
  return origins;
}

/** `TEMPORAL_UI_URL`'s origin, else the embedded dev server's UI (`DURABLE_AGENT_DEV_UI_PORT`, default 8233). */
export function defaultUiOrigins(env: DirectoryEnvironment): string[] {
  if (env.TEMPORAL_UI_URL) return uiOrigins(env.TEMPORAL_UI_URL);
  return uiOrigins(`http://127.0.0.1:${env.DURABLE_AGENT_DEV_UI_PORT || 8233}`);
}
