// Per-user directories for the embedded dev server's data and the provisioned Temporal CLI.
// Both live under the user's home (XDG layout), never inside a workspace the agent edits.
import os from 'node:os';
import path from 'node:path';

/** Environment variables the directory lookups read; `process.env` unless a caller passes its own. */
export type DirectoryEnvironment = Readonly<Record<string, string | undefined>>;

/** Where the dev server's SQLite database, logs and pid files live. */
export function stateDir(env: DirectoryEnvironment = process.env): string {
  return resolveDirectory(env.DURABLE_AGENT_STATE_DIR, env.XDG_STATE_HOME, ['.local', 'state']);
}

/** Where downloaded or built binaries (the Temporal CLI) are kept between runs. */
export function cacheDir(env: DirectoryEnvironment = process.env): string {
  return resolveDirectory(env.DURABLE_AGENT_CACHE_DIR, env.XDG_CACHE_HOME, ['.cache']);
}

function resolveDirectory(override: string | undefined, xdgBase: string | undefined, homeFallback: string[]): string {
  if (override) return path.resolve(override);
  // The XDG spec says relative values are invalid and must be ignored; honouring them would put state under the cwd.
  if (xdgBase && path.isAbsolute(xdgBase)) return path.join(xdgBase, 'durable-agent');
  return path.join(os.homedir(), ...homeFallback, 'durable-agent');
}
