// Node: the commands' HOME (tools' caches and dotfiles), in the worker's data directory for the workspace and never in
// the workspace: nothing a command writes there is a path the worker itself opens, and no link the model plants in
// the workspace can redirect it. The worker creates it one component at a time and refuses any component that is a link.
import { lstat, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { commandHomeDirectory } from '../worker-data.js';

/** The HOME could not be made safely: a link on its path, or something other than a directory. */
export class CommandHomeError extends Error {
  override name = 'CommandHomeError';
}

/** `commandHomeDirectory(workspaceData)`, created (0700) where missing; throws CommandHomeError on a link or a file. */
export async function ensureCommandHome(workspaceData: string): Promise<string> {
  const home = path.resolve(commandHomeDirectory(workspaceData));
  let current = path.parse(home).root;
  for (const part of home.slice(current.length).split(path.sep).filter(Boolean)) {
    current = path.join(current, part);
    let stats = await lstat(current).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return undefined;
      throw error;
    });
    if (!stats) {
      await mkdir(current, { mode: 0o700 }).catch((error: NodeJS.ErrnoException) => {
        if (error.code !== 'EEXIST') throw error;
      });
      stats = await lstat(current);
    }
    if (stats.isSymbolicLink()) {
      throw new CommandHomeError(
        `The commands' HOME ${home} is not created: ${current} is a symbolic link. ` +
          `Point the worker's data directory (DURABLE_AGENT_STATE_DIR) at a path without links.`,
      );
    }
    if (!stats.isDirectory()) throw new CommandHomeError(`The commands' HOME ${home}: ${current} is not a directory.`);
  }
  return home;
}
