// A server process a test owns: how it ended (for error messages), and a stop that waits for it and removes its
// temporary directory.
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs/promises';

export interface WatchedChild {
  /** How the process ended ("exited with code 1", "was killed by SIGTERM", "could not start (…)"); undefined while it runs. */
  exit: () => string | undefined;
  /** SIGTERM, SIGKILL after 10 s, then the directory is removed. */
  stop: () => Promise<void>;
}

export function watchChild(child: ChildProcess, directory: string): WatchedChild {
  let exit: string | undefined;
  const exited = new Promise<void>((resolve) => {
    child.once('exit', (code, signal) => {
      exit = signal ? `was killed by ${signal}` : `exited with code ${code}`;
      resolve();
    });
  });
  child.once('error', (error) => {
    exit = `could not start (${error.message})`;
  });
  return {
    exit: () => exit,
    stop: async () => {
      if (exit === undefined) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
        await exited;
        clearTimeout(timer);
      }
      await fs.rm(directory, { recursive: true, force: true });
    },
  };
}
