// Node: the Temporal client of a command that may end before it needs one. Loading the client and connecting takes
// about half a second of CPU here; `run` follows the run it started over the embedded server's HTTP API meanwhile, and
// connects only for what the client alone does (a message typed, a decision at the prompt, a payload in the store).
import { visibleLines } from '../core/terminal-text.js';
import type { Connected } from './connect.js';
import { color, log } from './output.js';

/**
 * How long a followed run goes before the background worker is supervised (and the Web UI's codec endpoint checked):
 * a run that ends sooner needs neither, and its command exits without loading what they need.
 */
export const SUPERVISION_DELAY_MS = 1_000;

/** A supervision of the background worker while a command waits on a run. */
export interface Supervision {
  stop(): Promise<void>;
}

/** A connection made on first use. */
export interface LazyConnected {
  /** The connection, made now if it was not yet. */
  get(): Promise<Connected>;
  /** Keeps the background worker alive while the command waits (Connected.keepWorkerAlive). */
  keepWorkerAlive(): void;
  /** Stops the supervision and closes the connection if one was made (one being made is waited for). */
  close(): Promise<void>;
}

/** A LazyConnected over `connect`, whose worker is kept alive by `supervise`, without the client. */
export function lazyConnected(connect: () => Promise<Connected>, supervise: () => Promise<Supervision>): LazyConnected {
  let connecting: Promise<Connected> | undefined;
  let supervision: Promise<Supervision | undefined> | undefined;
  let delay: NodeJS.Timeout | undefined;
  let closed = false;
  return {
    get() {
      if (closed) return Promise.reject(new Error('the connection was closed'));
      connecting ??= connect().catch((error: unknown) => {
        // A failed attempt is not kept: the next use tries again.
        connecting = undefined;
        throw error;
      });
      return connecting;
    },
    keepWorkerAlive() {
      delay ??= setTimeout(() => {
        supervision = supervise().catch((error: unknown) => {
          const reason = error instanceof Error ? error.message : String(error);
          log(
            color.yellow(
              `warning: the background worker is not watched while this run is followed: ${visibleLines(reason)}`,
            ),
          );
          return undefined;
        });
      }, SUPERVISION_DELAY_MS);
    },
    async close() {
      closed = true;
      clearTimeout(delay);
      await (await supervision)?.stop();
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
