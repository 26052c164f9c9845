// Finding a command's processes from the host: inside the sandbox a command sees its own pid namespace, so the pid it
// reports (`echo $$`) is not one the host knows. Tests give the command a unique argument and look for it instead.
import { readdir, readFile } from 'node:fs/promises';

/** Host pids (this process excluded) whose NUL-separated command line contains `token`. */
export async function hostPidsRunning(token: string): Promise<number[]> {
  const pids: number[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      const cmdline = await readFile(`/proc/${entry}/cmdline`, 'utf8');
      const state = await readFile(`/proc/${entry}/stat`, 'utf8');
      // An unreaped zombie has exited; it counts as gone.
      if (cmdline.includes(token) && state.slice(state.lastIndexOf(')') + 2)[0] !== 'Z') pids.push(Number(entry));
    } catch {
      // Exited while we looked.
    }
  }
  return pids;
}

/** A `sleep` duration no other process is using, to find the command by: `sleep <token>` is `sleep\0<token>`. */
export function uniqueSleepSeconds(): string {
  return `${300 + (process.pid % 97)}.${Date.now() % 1_000_000}`;
}
