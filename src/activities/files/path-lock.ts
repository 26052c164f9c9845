// Node: a per-path async mutex: serialises the read-check-commit sequence of writes to one file within this worker
// (docs/tools.md §8).

const tails = new Map<string, Promise<void>>();

/** Runs `task` once every earlier task holding the same key has settled. */
export async function withPathLock<T>(key: string, task: () => Promise<T>): Promise<T> {
  const previous = tails.get(key) ?? Promise.resolve();
  let release!: () => void;
  const current = new Promise<void>((resolve) => {
    release = resolve;
  });
  const tail = previous.then(() => current);
  tails.set(key, tail);
  await previous;
  try {
    return await task();
  } finally {
    release();
    // Keep the map from growing with every path ever written.
    if (tails.get(key) === tail) tails.delete(key);
  }
}
