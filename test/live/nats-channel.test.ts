// The NATS JetStream live channel against a real nats-server: what a publisher sends is what a subscriber reads, in
// order; a subscriber started mid-call reads that call from its first event; a retried call's attempts arrive in
// order with the superseded marker; a publisher outlives a server restart without throwing; a wrong token is refused.
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LiveChannel } from '../../src/live/live-channel.js';
import type { LiveCallIdentity, LiveEvent } from '../../src/live/live-event.js';
import { createNatsLiveChannel } from '../../src/live/nats-channel.js';
import { natsLiveOptionsFromEnv } from '../../src/live/nats-from-env.js';
import { startTestNatsServer } from '../support/nats-server.js';
import type { TestNatsServer } from '../support/nats-server.js';

let server: TestNatsServer;
const channels: LiveChannel[] = [];
const warnings: string[] = [];

function channel(): LiveChannel {
  const opened = createNatsLiveChannel({
    servers: [server.url],
    token: server.token,
    warn: (line) => warnings.push(line),
  });
  channels.push(opened);
  return opened;
}

let counter = 0;
function call(overrides: Partial<LiveCallIdentity> = {}): LiveCallIdentity {
  counter += 1;
  return {
    workflowId: `wf/${counter} with spaces.and.dots`,
    runId: '5f0c-run',
    activityId: '1',
    step: 1,
    attempt: 1,
    purpose: 'step',
    ...overrides,
  };
}

/** Collects events of `workflowId` until `until` holds for the list, then stops the subscription. */
async function collect(
  live: LiveChannel,
  workflowId: string,
  from: 'start' | 'current',
  until: (events: LiveEvent[]) => boolean,
  onEvent: (events: LiveEvent[]) => void = () => undefined,
): Promise<LiveEvent[]> {
  const controller = new AbortController();
  const timeout = setTimeout(() => controller.abort(), 15_000);
  const events: LiveEvent[] = [];
  try {
    for await (const event of live.subscribe(workflowId, { from, signal: controller.signal })) {
      events.push(event);
      onEvent(events);
      if (until(events)) controller.abort();
    }
  } finally {
    clearTimeout(timeout);
  }
  return events;
}

const texts = (events: LiveEvent[]) => events.map((event) => ('text' in event ? event.text : `<${event.kind}>`));

beforeAll(async () => {
  server = await startTestNatsServer();
}, 10 * 60_000);

afterAll(async () => {
  for (const opened of channels) await opened.close();
  await server?.remove();
});

describe('the NATS live channel', () => {
  it('delivers a call attempt in order with its identity, seq and time, coalesced or not', async () => {
    const live = channel();
    const identity = call();
    const publisher = live.publisher(identity);
    publisher.publish({ kind: 'start', model: 'scripted' });
    for (let index = 0; index < 50; index++) publisher.publish({ kind: 'text', text: `t${index} ` });
    await sleep(20);
    publisher.publish({ kind: 'tool_call', index: 0, id: 'call_1', name: 'Bash' });
    publisher.publish({ kind: 'tool_arguments', index: 0, text: '{"command":' });
    publisher.publish({ kind: 'end', finishReason: 'tool_calls' });
    await publisher.close();

    const events = await collect(channel(), identity.workflowId, 'start', (all) => all.at(-1)?.kind === 'end');
    expect(events.map((event) => event.seq)).toEqual([...Array(54).keys()]);
    expect(events[0]).toMatchObject({ ...identity, kind: 'start', model: 'scripted' });
    expect(texts(events).slice(1, 51).join('')).toBe([...Array(50).keys()].map((index) => `t${index} `).join(''));
    expect(events[51]).toMatchObject({ kind: 'tool_call', name: 'Bash', id: 'call_1' });
    expect(events.every((event) => typeof event.at === 'number' && event.at > 0)).toBe(true);
  });

  it('hands a subscriber the events as they are published, before the call ends', async () => {
    const identity = call();
    const publisher = channel().publisher(identity);
    publisher.publish({ kind: 'start', model: 'scripted' });
    let latency = Number.POSITIVE_INFINITY;
    let sentAt = 0;
    const events = await collect(
      channel(),
      identity.workflowId,
      'start',
      (all) => all.at(-1)?.kind === 'end',
      (all) => {
        if (all.length === 1) {
          sentAt = Date.now();
          publisher.publish({ kind: 'text', text: 'hello' });
        }
        if (all.length === 2) {
          latency = Date.now() - sentAt;
          publisher.publish({ kind: 'end', finishReason: 'stop' });
        }
      },
    );
    expect(texts(events)).toEqual(['<start>', 'hello', '<end>']);
    expect(latency).toBeLessThan(150);
  });

  it("starts a mid-call subscriber at the latest call's first event, then follows", async () => {
    const earlier = call();
    const latest = { ...earlier, activityId: '7', step: 2 };
    const live = channel();
    const first = live.publisher(earlier);
    first.publish({ kind: 'start', model: 'm' });
    first.publish({ kind: 'text', text: 'old call' });
    first.publish({ kind: 'end', finishReason: 'stop' });
    await first.close();
    const second = live.publisher(latest);
    second.publish({ kind: 'start', model: 'm' });
    second.publish({ kind: 'text', text: 'first half ' });
    await sleep(50);

    const events = await collect(
      channel(),
      earlier.workflowId,
      'current',
      (all) => all.at(-1)?.kind === 'end',
      (all) => {
        if (all.length === 2) {
          second.publish({ kind: 'text', text: 'second half' });
          second.publish({ kind: 'end', finishReason: 'stop' });
        }
      },
    );
    expect(events.every((event) => event.activityId === '7')).toBe(true);
    expect(texts(events)).toEqual(['<start>', 'first half ', 'second half', '<end>']);
  });

  it('shows a retried call as the failed attempt, the superseded marker, then the new attempt', async () => {
    const attempt1 = call({ activityId: '3' });
    const attempt2 = { ...attempt1, attempt: 2 };
    const live = channel();
    const one = live.publisher(attempt1);
    one.publish({ kind: 'start', model: 'm' });
    one.publish({ kind: 'text', text: 'dropped stream' });
    one.publish({ kind: 'failed', error: 'stream dropped' });
    await one.close();
    const two = live.publisher(attempt2);
    two.publish({ kind: 'superseded', supersededAttempt: 1 });
    two.publish({ kind: 'start', model: 'm' });
    two.publish({ kind: 'text', text: 'whole answer' });
    two.publish({ kind: 'end', finishReason: 'stop' });
    await two.close();

    for (const from of ['start', 'current'] as const) {
      const events = await collect(channel(), attempt1.workflowId, from, (all) => all.at(-1)?.kind === 'end');
      expect(events.map((event) => `${event.attempt}:${event.seq}:${event.kind}`)).toEqual([
        '1:0:start',
        '1:1:text',
        '1:2:failed',
        '2:0:superseded',
        '2:1:start',
        '2:2:text',
        '2:3:end',
      ]);
    }
  });

  it('keeps workflows apart: a subscriber sees only its own workflow id', async () => {
    const mine = call();
    const other = call();
    const live = channel();
    const theirs = live.publisher(other);
    theirs.publish({ kind: 'text', text: 'not yours' });
    await theirs.close();
    const own = live.publisher(mine);
    own.publish({ kind: 'text', text: 'yours' });
    own.publish({ kind: 'end', finishReason: 'stop' });
    await own.close();
    const events = await collect(channel(), mine.workflowId, 'start', (all) => all.at(-1)?.kind === 'end');
    expect(texts(events)).toEqual(['yours', '<end>']);
  });

  it('never throws from a publisher while the server is down, warns once, and publishes again once it is back', async () => {
    warnings.length = 0;
    const identity = call();
    const live = channel();
    const publisher = live.publisher(identity);
    publisher.publish({ kind: 'text', text: 'before ' });
    await sleep(50);
    await server.stop();
    const started = Date.now();
    for (let index = 0; index < 20; index++) publisher.publish({ kind: 'text', text: 'while down ' });
    expect(Date.now() - started).toBeLessThan(50);
    await sleep(3_000);
    await server.start();
    const after = live.publisher({ ...identity, attempt: 2 });
    // The client reconnects by itself: what is published once it has is delivered (until then it may be dropped).
    const republish = setInterval(() => {
      after.publish({ kind: 'text', text: 'after' });
      after.publish({ kind: 'end', finishReason: 'stop' });
    }, 250);
    const events = await collect(channel(), identity.workflowId, 'start', (all) => all.at(-1)?.kind === 'end');
    clearInterval(republish);
    await Promise.all([publisher.close(), after.close()]);
    expect(texts(events)[0]).toBe('before ');
    expect(texts(events)).toContain('after');
    expect(warnings.length).toBeLessThanOrEqual(1);
  }, 60_000);

  it('refuses a wrong token: the subscriber fails, the publisher warns and does not throw', async () => {
    warnings.length = 0;
    const wrong = createNatsLiveChannel({
      ...natsLiveOptionsFromEnv({ DURABLE_AGENT_LIVE_URL: server.url, DURABLE_AGENT_LIVE_TOKEN: 'wrong' }),
      warn: (line) => warnings.push(line),
    });
    channels.push(wrong);
    const publisher = wrong.publisher(call());
    publisher.publish({ kind: 'text', text: 'x' });
    await publisher.close();
    expect(warnings).toEqual([expect.stringMatching(/publishing to NATS failed \(Authorization Violation\)/)]);
    const controller = new AbortController();
    const reading = (async () => {
      for await (const event of wrong.subscribe('any', { from: 'start', signal: controller.signal })) void event;
    })();
    await expect(reading).rejects.toThrow(/authorization/i);
  });
});
