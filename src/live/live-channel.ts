// Node: the live-output channel a transport implements: publishers for call attempts, subscriptions per workflow id.
import type { LiveCallIdentity, LiveEvent } from './live-event.js';

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/** What a publisher is given: an event without the identity, `seq` and `at` it adds. */
export type LivePublication = DistributiveOmit<LiveEvent, keyof LiveCallIdentity | 'seq' | 'at'>;

/** Publishes the events of one call attempt; never throws and never waits for the transport. */
export interface LivePublisher {
  publish(event: LivePublication): void;
  close(): Promise<void>;
}

export interface LiveChannel {
  /** A publisher for one call attempt. */
  publisher(call: LiveCallIdentity): LivePublisher;
  /**
   * The events of one workflow id (all its runs), in order per call attempt. `from: 'start'` = everything still kept
   * (`run`, attached from the start); `from: 'current'` = the latest call's events from its beginning, then everything
   * after (`watch` started mid-call). Ends when `signal` aborts.
   */
  subscribe(workflowId: string, options: { from: 'start' | 'current'; signal: AbortSignal }): AsyncIterable<LiveEvent>;
  close(): Promise<void>;
}
