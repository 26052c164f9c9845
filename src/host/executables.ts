// Finding programs the way a shell does: the worker's sandbox and search tools and the CLI's provisioning all look
// executables up here.
import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import path from 'node:path';

/** Whether `file` is a regular file this process may execute. */
export async function isExecutableFile(file: string): Promise<boolean> {
  try {
    await access(file, constants.X_OK);
    return (await stat(file)).isFile();
  } catch {
    return false;
  }
}

/** Looks a command up on the environment's PATH the way a shell would (first executable match wins). */
export async function findOnPath(
  command: string,
  env: Readonly<Record<string, string | undefined>> = process.env,
): Promise<string | undefined> {
  for (const directory of (env.PATH ?? '').split(path.delimiter)) {
    if (!directory) continue;
    const candidate = path.join(directory, command);
    if (await isExecutableFile(candidate)) return candidate;
  }
  return undefined;
}
