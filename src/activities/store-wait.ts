// Node: waiting out a content store outage inside an activity whose work must not be repeated (a tool that has run:
// its result still has to be stored). While it waits, the activity heartbeats with what is wrong, so an operator reads
// it in the pending activity's details, and it gives up in time for the attempt's own start-to-close timeout.
import { StoreOutageError } from '../store/content-store.js';
import { currentActivityContext } from './activity-context.js';

/** Between tries: the store is asked again soon after it comes back, without hammering a server that is down. */
const RETRY_INTERVAL_MS = 1_000;
/** Kept free before the attempt's start-to-close timeout, to report the last error rather than time out. */
const TIMEOUT_MARGIN_MS = 2_000;

/** `operation()`, tried again while it fails with StoreOutageError and the attempt has time left; else its error. */
export async function waitingOutStoreOutage<T>(operation: () => Promise<T>): Promise<T> {
  const context = currentActivityContext();
  const timeoutMs = context?.info.startToCloseTimeoutMs;
  const deadline = context && timeoutMs ? context.info.currentAttemptScheduledTimestampMs + timeoutMs : Infinity;
  for (;;) {
    try {
      return await operation();
    } catch (error) {
      if (!(error instanceof StoreOutageError) || !context) throw error;
      if (Date.now() + RETRY_INTERVAL_MS > deadline - TIMEOUT_MARGIN_MS) throw error;
      context.heartbeat(`${error.message}: retrying`);
      await context.sleep(RETRY_INTERVAL_MS);
    }
  }
}
