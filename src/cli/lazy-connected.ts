// Node: the Temporal client of a command that may end before it needs one. Loading the client and connecting takes
// about half a second here; `run` follows the run it started over the embedded server's HTTP API meanwhile, and a short
// run ends before the client would have been ready.
import type { Connected } from './connect.js';

/**
 * How long a followed run goes before the client is connected anyway: the background worker's supervision and the Web
 * UI's codec check come with the connection, and a run that ends sooner needs neither.
 */
export const WARM_UP_MS = 1_000;

/** A connection made on first use. */
export interface LazyConnected {
  /** The connection, made now if it was not yet. */
  get(): Promise<Connected>;
  /** Keeps the background worker alive while the command waits (Connected.keepWorkerAlive), from WARM_UP_MS on. */
  keepWorkerAlive(): void;
  /** Closes the connection if one was made; one being made is waited for and closed. */
  close(): Promise<void>;
}

/** A LazyConnected over `connect`. */
export function lazyConnected(connect: () => Promise<Connected>): LazyConnected {
  let connecting: Promise<Connected> | undefined;
  let warmUp: NodeJS.Timeout | undefined;
  let closed = false;
  const get = (): Promise<Connected> => {
    if (closed) return Promise.reject(new Error('the connection was closed'));
    connecting ??= connect().catch((error: unknown) => {
      // A failed attempt is not kept: the next use tries again.
      connecting = undefined;
      throw error;
    });
    return connecting;
  };
  return {
    get,
    keepWorkerAlive() {
      warmUp ??= setTimeout(() => {
        // A failure here is met again, and reported, by whatever uses the connection next.
        get().then(
          (connected) => connected.keepWorkerAlive(),
          () => undefined,
        );
      }, WARM_UP_MS);
    },
    async close() {
      closed = true;
      clearTimeout(warmUp);
      const made = await connecting?.catch(() => undefined);
      await made?.close();
    },
  };
}

/** A LazyConnected over a connection already made. */
export function madeConnection(connected: Connected): LazyConnected {
  return {
    get: () => Promise.resolve(connected),
    keepWorkerAlive: () => connected.keepWorkerAlive(),
    close: () => connected.close(),
  };
}
