// Node: the channel live output travels through, outside workflow history: a worker publishes a call attempt's events,
// `run` and `watch` subscribe to a workflow id's. Transports: files on one host (file-channel.ts), NATS JetStream
// across hosts (nats-channel.ts); channel-from-env.ts picks one.
import type { LiveCallIdentity, LiveEvent, LivePayload } from './live-event.js';

/** Where one call attempt's events go. Publishing never throws and never waits: the model call must not notice it. */
export interface LivePublisher {
  publish(payload: LivePayload): void;
  /** Flushes what is still buffered; never rejects. */
  close(): Promise<void>;
}

/** Options of `LiveChannel.subscribe`. */
export interface LiveSubscription {
  /**
   * `start`: everything still kept (`run`, attached from the start); `current`: the latest call's events from its
   * beginning, then everything after (`watch` started mid-call).
   */
  from: 'start' | 'current';
  /** Ends the subscription. */
  signal: AbortSignal;
}

/** A transport of live events. */
export interface LiveChannel {
  /** A publisher for one call attempt. */
  publisher(call: LiveCallIdentity): LivePublisher;
  /** The events of one workflow id (all its runs), in order per call attempt, until `signal` aborts. */
  subscribe(workflowId: string, options: LiveSubscription): AsyncIterable<LiveEvent>;
  close(): Promise<void>;
}
