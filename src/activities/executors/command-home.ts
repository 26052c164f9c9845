// Node: the commands' HOME (tools' caches and dotfiles), in the worker's data directory for the workspace and never in
// the workspace: nothing a command writes there is a path the worker itself opens, and no link the model plants in
// the workspace can redirect it. The worker creates it one component at a time with the confined walk of
// files/confined.ts, which refuses any component that is a link.
import path from 'node:path';
import { isLinkInWorkspace, withConfinedDirectory } from '../files/confined.js';
import { commandHomeDirectory } from '../worker-data.js';

/** The HOME could not be made safely: a link on its path, or something other than a directory. */
export class CommandHomeError extends Error {
  override name = 'CommandHomeError';
}

/** `commandHomeDirectory(workspaceData)`, created (0700) where missing; throws CommandHomeError on a link or a file. */
export async function ensureCommandHome(workspaceData: string): Promise<string> {
  const home = path.resolve(commandHomeDirectory(workspaceData));
  const root = path.parse(home).root;
  const rel = home.slice(root.length).split(path.sep).filter(Boolean).join('/');
  try {
    await withConfinedDirectory(root, rel, { create: true, mode: 0o700 }, () => Promise.resolve());
  } catch (error) {
    if (!isLinkInWorkspace(error)) throw error;
    const current = path.join(root, error.rel);
    if (error.why === 'symlink') {
      throw new CommandHomeError(
        `The commands' HOME ${home} is not created: ${current} is a symbolic link. ` +
          `Point the worker's data directory (DURABLE_AGENT_STATE_DIR) at a path without links.`,
      );
    }
    if (error.why === 'not_directory') {
      throw new CommandHomeError(`The commands' HOME ${home}: ${current} is not a directory.`);
    }
    throw new CommandHomeError(`The commands' HOME ${home}: ${current} changed while the worker opened it.`);
  }
  return home;
}
