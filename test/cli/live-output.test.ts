// The terminal rendering of live events: text flows on, a tool call's name starts a line and its arguments are
// shortened, a superseded attempt's late output is dropped after the marker, events wait while a question is asked,
// and --json prints each event as one JSON line; all of it on stderr, escaped.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { startLiveOutput } from '../../src/cli/live-output.js';
import type { LiveChannel } from '../../src/live/live-channel.js';
import type { LiveEvent, LivePayload } from '../../src/live/live-event.js';

/** A channel that delivers the events it is given, then waits for the subscription to end. */
function channelOf(events: LiveEvent[]): LiveChannel & { release: () => void } {
  let release = (): void => undefined;
  const gate = new Promise<void>((resolve) => (release = resolve));
  return {
    release: () => release(),
    publisher: () => ({ publish: () => undefined, close: async () => undefined }),
    async *subscribe(_workflowId, { signal }) {
      for (const event of events) {
        await gate;
        yield event;
      }
      await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
    },
    close: async () => undefined,
  };
}

let seq = 0;
const event = (attempt: number, payload: LivePayload): LiveEvent => ({
  workflowId: 'agent-x',
  runId: 'r',
  activityId: '3',
  step: 1,
  attempt,
  purpose: 'step',
  seq: seq++,
  at: 0,
  ...payload,
});

let written: string;
beforeEach(() => {
  written = '';
  vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
    written += String(chunk);
    return true;
  });
});
afterEach(() => vi.restoreAllMocks());

describe('live output on the terminal', () => {
  it('prints text, a tool call with shortened arguments, and a superseded attempt marked, its late output dropped', async () => {
    const channel = channelOf([
      event(1, { kind: 'start', model: 'm' }),
      event(1, { kind: 'text', text: 'Let me look ' }),
      event(1, { kind: 'failed', error: 'Connection error.' }),
      event(2, { kind: 'superseded', supersededAttempt: 1 }),
      event(1, { kind: 'text', text: 'LATE FROM ATTEMPT ONE' }),
      event(2, { kind: 'text', text: 'Reading it.\u001b[2J' }),
      event(2, { kind: 'tool_call', index: 0, name: 'WriteFile' }),
      event(2, { kind: 'tool_arguments', index: 0, text: `{"content":"${'y'.repeat(300)}` }),
      event(2, { kind: 'tool_arguments', index: 0, text: 'more"}' }),
      event(2, { kind: 'end', finishReason: 'tool_calls' }),
    ]);
    const live = startLiveOutput(channel, 'agent-x', { from: 'start', json: false });
    channel.release();
    await live.stop();
    expect(written).toContain(
      'Let me look \n[attempt 1 failed: Connection error.]\n[attempt 1 superseded, retrying]\n',
    );
    expect(written).not.toContain('LATE FROM ATTEMPT ONE');
    expect(written).toContain('Reading it.\\x1b[2J\n→ WriteFile {"content":"yyy');
    expect(written).toContain('y…');
    expect(written).not.toContain('more"}');
    expect(written).not.toContain('\u001b');
  });

  it('holds events while a question is asked and prints them after', async () => {
    const channel = channelOf([event(1, { kind: 'text', text: 'after the prompt' })]);
    const live = startLiveOutput(channel, 'agent-x', { from: 'start', json: false });
    live.hold();
    channel.release();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(written).toBe('');
    live.release();
    expect(written).toBe('after the prompt');
    await live.stop();
  });

  it('with --json prints each event as one JSON line, the exact strings kept', async () => {
    const events = [
      event(1, { kind: 'start', model: 'm' }),
      event(1, { kind: 'text', text: 'a\u202eb\nc' }),
      event(1, { kind: 'end', finishReason: 'stop' }),
    ];
    const channel = channelOf(events);
    const live = startLiveOutput(channel, 'agent-x', { from: 'start', json: true });
    channel.release();
    await live.stop();
    const lines = written.trim().split('\n');
    expect(lines.map((line) => JSON.parse(line) as LiveEvent)).toEqual(events);
    expect(written).not.toContain('\u202e');
  });

  it('prints a call that ended with its run even while the catch-up before it is still waiting for an answer', async () => {
    const channel = channelOf([
      event(1, { kind: 'start', model: 'm' }),
      event(1, { kind: 'text', text: 'Removed it.' }),
      event(1, { kind: 'end', finishReason: 'stop' }),
    ]);
    const live = startLiveOutput(channel, 'agent-x', { from: 'start', json: false });
    // A state query of a run that has just closed: answered only after a worker replays it, or never.
    live.beforeEachCall(() => new Promise<void>(() => undefined));
    channel.release();
    const startedAt = Date.now();
    await live.stop();
    expect(written).toBe('Removed it.\n');
    // The call's end was read, so stopping did not wait out the drain.
    expect(Date.now() - startedAt).toBeLessThan(1_000);
  });
});
