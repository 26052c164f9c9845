// Node: the pause between two polls of a followed run, cut short when the run ends. The timer is cleared then, so a
// command that has its answer exits at once instead of waiting out the rest of the interval.
import { setTimeout as sleep } from 'node:timers/promises';

/** Waits `ms`, or until `until` settles (either way), and leaves no timer running. */
export async function pollPause(ms: number, until: Promise<unknown>): Promise<void> {
  const cut = new AbortController();
  try {
    await Promise.race([
      sleep(ms, undefined, { signal: cut.signal }),
      until.then(
        () => undefined,
        () => undefined,
      ),
    ]);
  } finally {
    cut.abort();
  }
}
