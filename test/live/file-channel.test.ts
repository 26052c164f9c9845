// The file transport of live output: a subscriber sees a call's events as they are written, resumes from where the
// file has got to, starts mid-call from the call's beginning, hears a retry supersede an attempt, and believes no line
// it cannot parse; the files are private, capped and swept.
import { mkdtemp, readdir, rm, stat, utimes, writeFile, appendFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createFileLiveChannel, sweepLiveFiles } from '../../src/live/file-channel.js';
import { attemptFile, liveRoot } from '../../src/live/file-layout.js';
import type { LiveChannel } from '../../src/live/live-channel.js';
import type { LiveCallIdentity, LiveEvent } from '../../src/live/live-event.js';

let stateDir: string;
let channel: LiveChannel;
beforeEach(async () => {
  stateDir = await mkdtemp(path.join(tmpdir(), 'live-'));
  channel = createFileLiveChannel({ stateDir, maxAttemptBytes: 10_000, coalesceMs: 2 });
});
afterEach(async () => {
  await channel.close();
  await rm(stateDir, { recursive: true, force: true });
});

const call = (attempt = 1, activityId = '3'): LiveCallIdentity => ({
  workflowId: 'agent-task-1',
  runId: 'run-a',
  activityId,
  step: 1,
  attempt,
  purpose: 'step',
});

/** Subscribes and collects events until `until` says enough (or two seconds pass). */
async function collect(
  from: 'start' | 'current',
  until: (events: LiveEvent[]) => boolean,
  meanwhile: () => Promise<void> = async () => undefined,
): Promise<LiveEvent[]> {
  const abort = new AbortController();
  const events: LiveEvent[] = [];
  const timeout = setTimeout(() => abort.abort(), 2_000);
  const reading = (async () => {
    for await (const event of channel.subscribe('agent-task-1', { from, signal: abort.signal })) {
      events.push(event);
      if (until(events)) abort.abort();
    }
  })();
  await meanwhile();
  await reading;
  clearTimeout(timeout);
  return events;
}

const texts = (events: LiveEvent[]) => events.flatMap((event) => (event.kind === 'text' ? [event.text] : []));

describe('the file live channel', () => {
  it('delivers a call as it is written, in order, with its identity, seq and time', async () => {
    const events = await collect(
      'start',
      (seen) => seen.some((event) => event.kind === 'end'),
      async () => {
        const publisher = channel.publisher(call());
        publisher.publish({ kind: 'start', model: 'm' });
        publisher.publish({ kind: 'text', text: 'Hello ' });
        await new Promise((resolve) => setTimeout(resolve, 50));
        publisher.publish({ kind: 'text', text: 'world' });
        publisher.publish({ kind: 'end', finishReason: 'stop' });
        await publisher.close();
      },
    );
    expect(events.map((event) => event.kind)).toEqual(['start', 'text', 'text', 'end']);
    expect(events.map((event) => event.seq)).toEqual([0, 1, 2, 3]);
    expect(texts(events)).toEqual(['Hello ', 'world']);
    expect(events[0]).toMatchObject({
      workflowId: 'agent-task-1',
      runId: 'run-a',
      activityId: '3',
      attempt: 1,
      step: 1,
    });
    expect(events.every((event) => typeof event.at === 'number')).toBe(true);
  });

  it('keeps the files private: directories 0700, files 0600', async () => {
    const publisher = channel.publisher(call());
    publisher.publish({ kind: 'start', model: 'm' });
    await publisher.close();
    const file = attemptFile(liveRoot(stateDir), call());
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect((await stat(path.dirname(file))).mode & 0o777).toBe(0o700);
    expect((await stat(path.dirname(path.dirname(file)))).mode & 0o777).toBe(0o700);
  });

  it('from current: an earlier call is skipped, the call under way is shown from its beginning, then what follows', async () => {
    const earlier = channel.publisher(call(1, '1'));
    earlier.publish({ kind: 'text', text: 'old step' });
    earlier.publish({ kind: 'end', finishReason: 'stop' });
    await earlier.close();
    await new Promise((resolve) => setTimeout(resolve, 20));
    const current = channel.publisher(call(1, '3'));
    current.publish({ kind: 'start', model: 'm' });
    current.publish({ kind: 'text', text: 'first half ' });
    await new Promise((resolve) => setTimeout(resolve, 20));
    const events = await collect(
      'current',
      (seen) => seen.some((event) => event.kind === 'end'),
      async () => {
        await new Promise((resolve) => setTimeout(resolve, 100));
        current.publish({ kind: 'text', text: 'second half' });
        current.publish({ kind: 'end', finishReason: 'stop' });
        await current.close();
      },
    );
    expect(texts(events)).toEqual(['first half ', 'second half']);
  });

  it('a retry publishes superseded before its start; a subscriber sees both attempts in order per attempt', async () => {
    const first = channel.publisher(call(1));
    first.publish({ kind: 'start', model: 'm' });
    first.publish({ kind: 'text', text: 'cut o' });
    first.publish({ kind: 'failed', error: 'Connection error.' });
    await first.close();
    const second = channel.publisher(call(2));
    second.publish({ kind: 'superseded', supersededAttempt: 1 });
    second.publish({ kind: 'start', model: 'm' });
    second.publish({ kind: 'text', text: 'whole answer' });
    second.publish({ kind: 'end', finishReason: 'stop' });
    await second.close();
    const events = await collect(
      'start',
      (seen) => seen.filter((event) => event.kind === 'end' || event.kind === 'failed').length === 2,
    );
    const byAttempt = (attempt: number) =>
      events.filter((event) => event.attempt === attempt).map((event) => event.kind);
    expect(byAttempt(1)).toEqual(['start', 'text', 'failed']);
    expect(byAttempt(2)).toEqual(['superseded', 'start', 'text', 'end']);
  });

  it('resumes a file from the byte offset it had reached: a line written in two parts is read once, whole', async () => {
    const file = attemptFile(liveRoot(stateDir), call());
    await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
    const line = JSON.stringify({ ...call(), seq: 0, at: 1, kind: 'text', text: 'split line' });
    await writeFile(file, line.slice(0, 20), { mode: 0o600 });
    const events = await collect(
      'start',
      (seen) => seen.length >= 2,
      async () => {
        await new Promise((resolve) => setTimeout(resolve, 60));
        await appendFile(file, `${line.slice(20)}\n`);
        await new Promise((resolve) => setTimeout(resolve, 60));
        await appendFile(file, `${JSON.stringify({ ...call(), seq: 1, at: 2, kind: 'end', finishReason: 'stop' })}\n`);
      },
    );
    expect(events.map((event) => event.seq)).toEqual([0, 1]);
    expect(texts(events)).toEqual(['split line']);
  });

  it('believes no line that is not an event of this workflow; hostile text is delivered as data, unchanged', async () => {
    const file = attemptFile(liveRoot(stateDir), call());
    await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
    const hostile = 'evil\u001b]52;c;aGk=\u0007\u001b[2J\u202e';
    await writeFile(
      file,
      [
        'not json',
        JSON.stringify({ kind: 'text', text: 'no identity' }),
        JSON.stringify({ ...call(), workflowId: 'agent-other', seq: 0, at: 1, kind: 'text', text: 'another run' }),
        JSON.stringify({ ...call(), seq: 0, at: 1, kind: 'shell', command: 'rm -rf /' }),
        JSON.stringify({ ...call(), seq: 1, at: 1, kind: 'text', text: hostile }),
        JSON.stringify({ ...call(), seq: 2, at: 1, kind: 'end', finishReason: 'stop' }),
        '',
      ].join('\n'),
    );
    const events = await collect('start', (seen) => seen.some((event) => event.kind === 'end'));
    expect(events.map((event) => event.kind)).toEqual(['text', 'end']);
    expect(texts(events)).toEqual([hostile]);
  });

  it('caps an attempt: deltas past the cap are dropped, its end is still written', async () => {
    const publisher = channel.publisher(call());
    publisher.publish({ kind: 'start', model: 'm' });
    for (let index = 0; index < 100; index += 1) publisher.publish({ kind: 'text', text: 'x'.repeat(500) });
    publisher.publish({ kind: 'end', finishReason: 'stop' });
    await publisher.close();
    const file = attemptFile(liveRoot(stateDir), call());
    expect((await stat(file)).size).toBeLessThan(11_000);
    const events = await collect('start', (seen) => seen.some((event) => event.kind === 'end'));
    expect(events.at(-1)?.kind).toBe('end');
    expect(texts(events).length).toBeGreaterThan(5);
    expect(texts(events).length).toBeLessThan(20);
    expect(events.map((event) => event.seq)).toEqual(events.map((_event, index) => index));
  });

  it('sweeps files older than the keep time and the directories left empty, keeping recent ones', async () => {
    const old = channel.publisher(call(1, '1'));
    old.publish({ kind: 'start', model: 'm' });
    await old.close();
    const recent = channel.publisher({ ...call(1, '2'), workflowId: 'agent-task-2' });
    recent.publish({ kind: 'start', model: 'm' });
    await recent.close();
    const oldFile = attemptFile(liveRoot(stateDir), call(1, '1'));
    const hourAgo = new Date(Date.now() - 2 * 60 * 60 * 1000);
    await utimes(oldFile, hourAgo, hourAgo);
    expect(await sweepLiveFiles(liveRoot(stateDir), 60 * 60 * 1000)).toBe(1);
    expect(await readdir(liveRoot(stateDir))).toEqual([Buffer.from('agent-task-2').toString('hex')]);
  });

  it('a publisher that cannot write warns once and never throws', async () => {
    const warnings: string[] = [];
    // The state directory is a file: nothing can be made under it.
    const blocked = path.join(stateDir, 'blocked');
    await writeFile(blocked, '');
    const broken = createFileLiveChannel({
      stateDir: blocked,
      maxAttemptBytes: 1_000,
      warn: (line) => warnings.push(line),
    });
    const publisher = broken.publisher(call());
    publisher.publish({ kind: 'start', model: 'm' });
    await publisher.close();
    const again = broken.publisher(call(2));
    again.publish({ kind: 'start', model: 'm' });
    await again.close();
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('live output: could not write');
  });
});
