// Node: where the worker keeps its own bookkeeping for a workspace (the write journal, the commands' HOME): under the
// worker's data directory, never inside the workspace, so nothing a command or the model writes can plant a link on a
// path the worker itself opens (docs/security.md).
import { createHash } from 'node:crypto';
import path from 'node:path';
import { stateDir } from '../host/state-dir.js';

/** The worker's data directory by default: `<state dir>/worker` (DURABLE_AGENT_STATE_DIR, XDG_STATE_HOME, ~/.local/state). */
export const WORKER_DATA_SUBDIRECTORY = 'worker';

/** `<dataDir>/workspaces/<digest of the real workspace root>`: one directory per workspace, never inside it. */
export function workspaceDataDirectory(dataDir: string, realRoot: string): string {
  const digest = createHash('sha256').update(path.resolve(realRoot)).digest('hex').slice(0, 16);
  return path.join(path.resolve(dataDir), 'workspaces', digest);
}

/** The data directory of a worker not told otherwise (the embedded worker and `durable-agent worker` alike). */
export function defaultWorkerDataDir(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(stateDir(env), WORKER_DATA_SUBDIRECTORY);
}

/** The commands' HOME for a workspace (tools' caches and dotfiles): `<workspace data directory>/home`. */
export function commandHomeDirectory(workspaceData: string): string {
  return path.join(workspaceData, 'home');
}

/** The write journal of a workspace (docs/tools.md §8 durable retry): `<workspace data directory>/journal`. */
export function journalDirectory(workspaceData: string): string {
  return path.join(workspaceData, 'journal');
}
