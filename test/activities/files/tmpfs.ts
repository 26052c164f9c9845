// A tiny tmpfs mounted on a temp directory, for real ENOSPC. Needs root with mount rights; callers skip otherwise.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { makeWorkspace, removeWorkspace } from './session.js';

const run = promisify(execFile);

/** Mounts a tmpfs of `sizeKiB` on a fresh directory; undefined when this environment does not allow it. */
export async function mountSmallTmpfs(
  sizeKiB: number,
): Promise<{ root: string; unmount(): Promise<void> } | undefined> {
  if (process.platform !== 'linux' || process.getuid?.() !== 0) return undefined;
  const root = await makeWorkspace('tmpfs-');
  try {
    await run('mount', ['-t', 'tmpfs', '-o', `size=${sizeKiB}k`, 'tmpfs', root]);
  } catch {
    await removeWorkspace(root);
    return undefined;
  }
  return {
    root,
    unmount: async () => {
      await run('umount', [root]).catch(() => undefined);
      await removeWorkspace(root);
    },
  };
}
