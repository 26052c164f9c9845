// Node: the NATS JetStream layout of live output: one stream, one subject per call attempt, the stream's limits.
import { DiscardPolicy, RetentionPolicy, StorageType } from '@nats-io/jetstream';
import type { StreamConfig } from '@nats-io/jetstream';
import { nanos } from '@nats-io/transport-node';
import type { LiveCallIdentity } from './live-event.js';

/** The stream every call attempt's events go to. */
export const LIVE_STREAM = 'DURABLE_AGENT_LIVE';

/** The stream's limits: live output is for watching, not keeping; the committed turn stays the record. */
export interface LiveStreamLimits {
  /** How long an event is kept (about an hour: long enough for a `watch` started late). */
  maxAgeMs: number;
  /** All of the stream together; the oldest events go first. */
  maxBytes: number;
  /** One message (a coalesced batch of events). */
  maxMessageBytes: number;
  /** Messages per subject, that is per call attempt. */
  maxMessagesPerAttempt: number;
}

export const DEFAULT_LIVE_STREAM_LIMITS: LiveStreamLimits = {
  maxAgeMs: 60 * 60_000,
  maxBytes: 1024 * 1024 * 1024,
  maxMessageBytes: 1024 * 1024,
  maxMessagesPerAttempt: 10_000,
};

/** The stream's configuration for these limits; file storage, so a restarted server still has the last hour. */
export function liveStreamConfig(limits: LiveStreamLimits): Partial<StreamConfig> & { name: string } {
  return {
    name: LIVE_STREAM,
    subjects: ['live.>'],
    retention: RetentionPolicy.Limits,
    storage: StorageType.File,
    discard: DiscardPolicy.Old,
    max_age: nanos(limits.maxAgeMs),
    max_bytes: limits.maxBytes,
    max_msg_size: limits.maxMessageBytes,
    max_msgs_per_subject: limits.maxMessagesPerAttempt,
    // Readers find where the latest call began with direct gets (last message of the workflow, first of the call).
    allow_direct: true,
    num_replicas: 1,
  };
}

// A subject token is any run of characters without '.', '*', '>' or white space; ids that are not plain are hex-encoded
// behind a '=' (which a plain token never contains), so the encoding is one-to-one.
const PLAIN_TOKEN = /^[A-Za-z0-9_-]+$/;

function token(value: string): string {
  return PLAIN_TOKEN.test(value) ? value : `=${Buffer.from(value, 'utf8').toString('hex')}`;
}

/** `live.<hex(workflowId)>`: the prefix of every subject of one workflow id, all its runs. */
export function workflowSubjectPrefix(workflowId: string): string {
  return `live.${Buffer.from(workflowId, 'utf8').toString('hex')}`;
}

/** `live.<hex(workflowId)>.<runId>.<activityId>.<attempt>`. */
export function attemptSubject(call: LiveCallIdentity): string {
  return `${workflowSubjectPrefix(call.workflowId)}.${token(call.runId)}.${token(call.activityId)}.${call.attempt}`;
}

/** The filter of every attempt of the call a subject of this layout belongs to (`live.<wf>.<run>.<activity>.*`). */
export function callFilterOf(subject: string): string | undefined {
  const parts = subject.split('.');
  return parts.length === 5 && parts[0] === 'live' ? `${parts.slice(0, 4).join('.')}.*` : undefined;
}
