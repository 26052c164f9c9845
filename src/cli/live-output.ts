// Node: a run's live output on this terminal, beside the progress lines: the model's text as it arrives, reasoning
// dimmed, each tool call's name and then its arguments (shortened), and a retried call's first attempt marked
// superseded before the new attempt is shown in full. With --json, every event is one JSON line instead. All of it is
// the model's output: it goes through the terminal-text escaping, never raw. It writes to stderr, like the progress.
import type { LiveChannel } from '../live/live-channel.js';
import { liveChannelFromEnv } from '../live/channel-from-env.js';
import type { LiveEvent } from '../live/live-event.js';
import { visibleText } from '../core/terminal-text.js';
import { color, logJson, logPart } from './output.js';

export { wantsLiveOutput } from './live-option.js';

/** What the follower needs from live output: lines of its own start on a fresh line, and a prompt is not disturbed. */
export interface LiveOutput {
  /** Ends a line of live text left open, so a progress line starts at the left margin. */
  beforeLine(): void;
  /** Holds events back while a question is asked or a line typed at the terminal; holds nest. */
  hold(): void;
  /** Ends one hold; the last one prints what was held back and goes on. */
  release(): void;
  /**
   * Runs `catchUp` before a new model call's output is shown, so the progress lines of the step before (its tool
   * calls) come first, in the order things happened.
   */
  beforeEachCall(catchUp: () => Promise<void>): void;
  /** Stops reading, after a short wait for the last events of a call that just ended. */
  stop(): Promise<void>;
}

// How much of a call's arguments is shown: enough to tell what it does, not a whole file being written.
const ARGUMENTS_SHOWN = 200;
// A call that ended just before its run did may still be on its way: following stops once every call seen to start
// has been seen to end (or fail), or once no event has come for this long (a loaded machine reads slowly, so the
// wait runs from the last event read, up to MAX_DRAIN_MS in all).
const DRAIN_MS = 2_000;
const MAX_DRAIN_MS = 10_000;
const DRAIN_POLL_MS = 20;
// Events already written but not read yet get this long in any case.
const MIN_DRAIN_MS = 150;

/** Live output of `workflowId` through the channel this environment names, when wanted; undefined when off. */
export async function followLiveOutput(
  wanted: boolean,
  workflowId: string,
  options: LiveOutputOptions,
): Promise<LiveOutput | undefined> {
  if (!wanted) return undefined;
  const channel = await liveChannelFromEnv(process.env, { role: 'cli' });
  return channel ? startLiveOutput(channel, workflowId, options) : undefined;
}

/** Where live output starts and how it is shown. */
export interface LiveOutputOptions {
  /** `start`: `run`, from the start; `current`: `watch`, from the start of the current call. */
  from: 'start' | 'current';
  json: boolean;
  /** Only calls that started at or after this time (epoch ms): `continue` shows the request it sent, not the ones before. */
  since?: number;
}

/** Starts printing the live output of `workflowId`. */
export function startLiveOutput(channel: LiveChannel, workflowId: string, options: LiveOutputOptions): LiveOutput {
  const abort = new AbortController();
  const printer = options.json ? undefined : new LivePrinter();
  let held: LiveEvent[] | undefined;
  let holds = 0;
  let catchUp: (() => Promise<void>) | undefined;
  let stopped: Promise<void> | undefined;
  let stopping: (() => void) | undefined;
  const stopRequested = new Promise<void>((resolve) => (stopping = resolve));
  let lastEventAt = 0;
  // Call attempts seen to start and not yet seen to end: what stopping waits for.
  const open = new Set<string>();
  const track = (event: LiveEvent): void => {
    const attempt = `${event.runId}/${event.activityId}/${event.attempt}`;
    if (event.kind === 'start') open.add(attempt);
    else if (event.kind === 'end' || event.kind === 'failed') open.delete(attempt);
    else if (event.kind === 'superseded')
      for (const key of open) if (key.startsWith(`${event.runId}/${event.activityId}/`)) open.delete(key);
  };
  const earlier = new Set<string>();
  const isEarlier = (event: LiveEvent): boolean => {
    const call = `${event.runId}/${event.activityId}/${event.attempt}`;
    if (event.kind === 'start' && options.since !== undefined && event.at < options.since) earlier.add(call);
    return earlier.has(call);
  };
  const show = (event: LiveEvent): void => (printer ? printer.print(event) : logJson(event));
  const reading = (async () => {
    try {
      for await (const event of channel.subscribe(workflowId, { from: options.from, signal: abort.signal })) {
        lastEventAt = Date.now();
        if (isEarlier(event)) continue;
        track(event);
        // Once following stops, the catch-up (a state query a closed run answers late) no longer holds the events
        // back: the follower prints the run's last lines itself.
        if (event.kind === 'start' && catchUp) await Promise.race([catchUp().catch(() => undefined), stopRequested]);
        if (held) held.push(event);
        else show(event);
      }
    } catch {
      // Live output is a view: when it cannot be read, the progress lines still tell the run's story.
    }
  })();
  return {
    beforeLine: () => printer?.endLine(),
    beforeEachCall: (hook) => {
      catchUp = hook;
    },
    hold: () => {
      holds += 1;
      held ??= [];
    },
    release: () => {
      holds = Math.max(0, holds - 1);
      if (holds > 0) return;
      const events = held ?? [];
      held = undefined;
      for (const event of events) show(event);
    },
    stop: () =>
      (stopped ??= (async () => {
        stopping?.();
        const startedAt = Date.now();
        const until = () => Math.min(startedAt + MAX_DRAIN_MS, Math.max(startedAt, lastEventAt) + DRAIN_MS);
        await new Promise((resolve) => setTimeout(resolve, MIN_DRAIN_MS));
        while (open.size > 0 && Date.now() < until())
          await new Promise((resolve) => setTimeout(resolve, DRAIN_POLL_MS));
        abort.abort();
        await reading;
        printer?.endLine();
        await channel.close();
      })()),
  };
}

/** The human rendering: text flows on, a tool call gets a line of its own, markers say what a retry voided. */
class LivePrinter {
  private midLine = false;
  /** Per call (run and activity), the attempts a later attempt declared void. */
  private readonly voided = new Map<string, number>();
  /** Characters of arguments shown so far, per attempt and tool call. */
  private readonly argumentsShown = new Map<string, number>();

  print(event: LiveEvent): void {
    const call = `${event.runId}/${event.activityId}`;
    if (event.attempt <= (this.voided.get(call) ?? 0)) return;
    switch (event.kind) {
      case 'start':
        return;
      case 'text':
        return this.write(visibleText(event.text, { lines: true }));
      case 'reasoning':
        return this.write(color.dim(visibleText(event.text, { lines: true })));
      case 'tool_call':
        this.endLine();
        return this.write(`${color.cyan('→')} ${color.cyan(visibleText(event.name))} `);
      case 'tool_arguments':
        return this.writeArguments(`${call}/${event.attempt}/${event.index}`, event.text);
      case 'end':
        return this.endLine();
      case 'failed':
        this.endLine();
        return this.line(color.dim(`[attempt ${event.attempt} failed: ${visibleText(event.error)}]`));
      case 'superseded':
        this.voided.set(call, Math.max(this.voided.get(call) ?? 0, event.supersededAttempt));
        this.endLine();
        return this.line(color.yellow(`[attempt ${event.supersededAttempt} superseded, retrying]`));
    }
  }

  endLine(): void {
    if (!this.midLine) return;
    logPart('\n');
    this.midLine = false;
  }

  // Arguments stay on the call's line (newlines shown as \n), up to a length, then one ellipsis.
  private writeArguments(key: string, text: string): void {
    const shown = this.argumentsShown.get(key) ?? 0;
    if (shown > ARGUMENTS_SHOWN) return;
    const room = ARGUMENTS_SHOWN - shown;
    const piece = Array.from(text);
    this.argumentsShown.set(key, shown + piece.length);
    const cut = piece.length > room;
    this.write(color.dim(visibleText(piece.slice(0, room).join('')) + (cut ? '…' : '')));
  }

  private write(text: string): void {
    if (text === '') return;
    logPart(text);
    this.midLine = !text.endsWith('\n');
  }

  private line(text: string): void {
    logPart(`${text}\n`);
    this.midLine = false;
  }
}
