// Node: one call attempt's publisher on NATS JetStream. Events are coalesced for a few milliseconds into one message
// (NDJSON, one event a line) and sent one message after another, so their order on the subject is the order they were
// published in. Nothing here throws into the model call or makes it wait: a failed send is dropped after one warning
// for the whole channel, a backlog past its bound (a server that is away) drops new events, and `close` waits only a
// bounded while for what is still on its way.
import { setTimeout as sleep } from 'node:timers/promises';
import type { JetStreamClient } from '@nats-io/jetstream';
import type { LivePublisher } from './live-channel.js';
import type { LivePayload } from './live-event.js';
import type { LiveCallIdentity, LiveEvent } from './live-event.js';
import { attemptSubject } from './nats-subjects.js';

/** How long events wait to be sent together: small beside the 150 ms a chunk may take to reach a terminal. */
export const COALESCE_MS = 5;
/** A batch is sent at once when it reaches this size, well under the stream's message limit. */
const BATCH_BYTES = 64 * 1024;
/** Events not yet acknowledged by the server, at most; past it new events are dropped. */
const BACKLOG_BYTES = 4 * 1024 * 1024;
/** How long JetStream may take to acknowledge one batch before it counts as failed. */
export const PUBLISH_TIMEOUT_MS = 2_000;
/** How long `close` waits for the batches still on their way. */
const CLOSE_WAIT_MS = 2_500;

/** What a publisher needs of its channel. */
export interface PublisherContext {
  /** The connected JetStream client with the stream in place; rejects when the server cannot be reached. */
  jetstream(): Promise<JetStreamClient>;
  /** Reports a failure; the channel prints only the first. */
  warn(problem: unknown): void;
}

export function natsPublisher(call: LiveCallIdentity, context: PublisherContext): LivePublisher {
  const subject = attemptSubject(call);
  let seq = 0;
  let batch: string[] = [];
  let batchBytes = 0;
  let backlogBytes = 0;
  let timer: NodeJS.Timeout | undefined;
  let sending: Promise<void> = Promise.resolve();
  let closed = false;

  const send = async (lines: string[], bytes: number) => {
    try {
      const js = await context.jetstream();
      await js.publish(subject, lines.join('\n'), { timeout: PUBLISH_TIMEOUT_MS });
    } catch (error) {
      context.warn(error);
    } finally {
      backlogBytes -= bytes;
    }
  };
  const flush = () => {
    clearTimeout(timer);
    timer = undefined;
    if (batch.length === 0) return;
    const lines = batch;
    const bytes = batchBytes;
    batch = [];
    batchBytes = 0;
    sending = sending.then(() => send(lines, bytes));
  };

  return {
    publish(event: LivePayload) {
      if (closed) return;
      const full = { ...call, ...event, seq: seq++, at: Date.now() } as LiveEvent;
      const line = JSON.stringify(full);
      const bytes = Buffer.byteLength(line) + 1;
      if (backlogBytes + bytes > BACKLOG_BYTES) {
        context.warn(new Error(`more than ${BACKLOG_BYTES} bytes of live output not yet accepted by the server`));
        return;
      }
      backlogBytes += bytes;
      batch.push(line);
      batchBytes += bytes;
      if (batchBytes >= BATCH_BYTES) flush();
      else timer ??= setTimeout(flush, COALESCE_MS);
    },
    async close() {
      closed = true;
      flush();
      await Promise.race([sending, sleep(CLOSE_WAIT_MS, undefined, { ref: false })]);
    },
  };
}
