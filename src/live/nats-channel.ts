// Node: live output over NATS JetStream, for a cluster whose workers run on other hosts than the CLI. Workers publish
// each call attempt on its own subject of one stream; a reader follows a workflow id with an ordered consumer filtered
// on its subjects, from all that is kept or from where the latest call began (a stream sequence: resume from an
// offset). One connection per channel, made on first use and re-made after a failed first connect; the client
// reconnects by itself after that, and the ordered consumer re-creates itself at the sequence it had reached.
import { DeliverPolicy, jetstream, jetstreamManager } from '@nats-io/jetstream';
import type { JetStreamClient, JetStreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import type { NatsConnection } from '@nats-io/transport-node';
import type { LiveChannel } from './live-channel.js';
import type { LiveEvent } from './live-event.js';
import { natsPublisher } from './nats-publisher.js';
import {
  callFilterOf,
  DEFAULT_LIVE_STREAM_LIMITS,
  LIVE_STREAM,
  liveStreamConfig,
  workflowSubjectPrefix,
} from './nats-subjects.js';
import type { LiveStreamLimits } from './nats-subjects.js';

/** How to reach the NATS server and what to present to it. */
export interface NatsLiveChannelOptions {
  /** `nats://host:port` or `tls://host:port`, one or several. */
  servers: string[];
  token?: string;
  user?: string;
  password?: string;
  /** PEM files: the authority the server's certificate must chain to, and a client certificate where one is asked. */
  tls?: { caFile?: string; certFile?: string; keyFile?: string };
  limits?: Partial<LiveStreamLimits>;
  /** Where the one warning of a publishing failure goes (default: the process's standard error). */
  warn?: (line: string) => void;
}

interface Connected {
  nc: NatsConnection;
  js: JetStreamClient;
  jsm: JetStreamManager;
}

const CONNECT_TIMEOUT_MS = 5_000;

export function createNatsLiveChannel(options: NatsLiveChannelOptions): LiveChannel {
  const limits = { ...DEFAULT_LIVE_STREAM_LIMITS, ...options.limits };
  const warnLine = options.warn ?? ((line: string) => process.stderr.write(`${line}\n`));
  let warned = false;
  let connecting: Promise<Connected> | undefined;
  let closed = false;

  const connection = (): Promise<Connected> => {
    if (closed) return Promise.reject(new Error('the live channel is closed'));
    connecting ??= open(options, limits).catch((error: unknown) => {
      // The next use tries again: a server that was down when the worker started is used once it is up.
      connecting = undefined;
      throw error;
    });
    return connecting;
  };

  return {
    publisher: (call) =>
      natsPublisher(call, {
        jetstream: async () => (await connection()).js,
        warn: (problem) => {
          if (warned) return;
          warned = true;
          warnLine(
            `live output: publishing to NATS failed (${describe(problem)}); dropping what cannot be sent, ` +
              'the run goes on and its committed turns stay the record',
          );
        },
      }),
    subscribe: (workflowId, { from, signal }) => follow(connection, workflowId, from, signal),
    async close() {
      closed = true;
      const open = await connecting?.catch(() => undefined);
      connecting = undefined;
      await open?.nc.drain().catch(() => undefined);
    },
  };
}

async function open(options: NatsLiveChannelOptions, limits: LiveStreamLimits): Promise<Connected> {
  const nc = await connect({
    servers: options.servers,
    name: `durable-agent pid ${process.pid}`,
    timeout: CONNECT_TIMEOUT_MS,
    maxReconnectAttempts: -1,
    ...(options.token !== undefined ? { token: options.token } : {}),
    ...(options.user !== undefined ? { user: options.user, pass: options.password ?? '' } : {}),
    ...(options.tls || options.servers.some((server) => server.startsWith('tls://')) ? { tls: options.tls ?? {} } : {}),
  });
  try {
    const jsm = await jetstreamManager(nc);
    const config = liveStreamConfig(limits);
    // Idempotent: adding a stream that exists with this configuration succeeds; one that differs is brought to it.
    await jsm.streams.add(config).catch(async () => await jsm.streams.update(LIVE_STREAM, config));
    return { nc, js: jetstream(nc), jsm };
  } catch (error) {
    await nc.close();
    throw error;
  }
}

/** The stream sequence the latest call of `prefix` began at, or undefined when nothing of it is kept. */
async function latestCallStart(jsm: JetStreamManager, prefix: string): Promise<number | undefined> {
  const last = await jsm.direct.getMessage(LIVE_STREAM, { last_by_subj: `${prefix}.>` }).catch(() => null);
  const filter = last ? callFilterOf(last.subject) : undefined;
  if (!last || !filter) return undefined;
  const first = await jsm.direct.getMessage(LIVE_STREAM, { seq: 0, next_by_subj: filter }).catch(() => null);
  return first?.seq ?? last.seq;
}

async function* follow(
  connection: () => Promise<Connected>,
  workflowId: string,
  from: 'start' | 'current',
  signal: AbortSignal,
): AsyncGenerator<LiveEvent> {
  if (signal.aborted) return;
  const { js, jsm } = await connection();
  const prefix = workflowSubjectPrefix(workflowId);
  // With nothing kept yet, "the latest call from its beginning" is whatever comes first: deliver all.
  const start = from === 'current' ? await latestCallStart(jsm, prefix) : undefined;
  const consumer = await js.consumers.get(LIVE_STREAM, {
    filter_subjects: [`${prefix}.>`],
    ...(start === undefined
      ? { deliver_policy: DeliverPolicy.All }
      : { deliver_policy: DeliverPolicy.StartSequence, opt_start_seq: start }),
  });
  if (signal.aborted) return;
  const messages = await consumer.consume();
  const stop = () => messages.stop();
  signal.addEventListener('abort', stop, { once: true });
  try {
    for await (const message of messages) {
      for (const line of message.string().split('\n')) {
        const event = parseEvent(line, workflowId);
        if (event) yield event;
      }
    }
  } finally {
    signal.removeEventListener('abort', stop);
    messages.stop();
  }
}

/** A line as an event of `workflowId`, or undefined: whoever holds the credential could have written anything. */
function parseEvent(line: string, workflowId: string): LiveEvent | undefined {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const event = value as Partial<Record<keyof LiveEvent, unknown>>;
  const wellFormed =
    event.workflowId === workflowId &&
    typeof event.kind === 'string' &&
    typeof event.runId === 'string' &&
    typeof event.activityId === 'string' &&
    Number.isInteger(event.attempt) &&
    Number.isInteger(event.seq) &&
    typeof event.at === 'number';
  return wellFormed ? (value as LiveEvent) : undefined;
}

function describe(problem: unknown): string {
  return problem instanceof Error ? problem.message : String(problem);
}
