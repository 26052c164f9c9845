// Node: the heartbeats every model and tool activity sends while it runs, on a timer rather than on progress, so a call
// waiting for its first token, a silent command or a slow write still tells the server its worker is alive.
import type { Context } from '@temporalio/activity';
import { performance } from 'node:perf_hooks';
import { HEARTBEAT_INTERVAL_MS } from '../protocol/tool-activity.js';

/** An activity's heartbeats: `beat` sends now, `update` changes what the next timed one carries. */
export interface KeepAlive {
  beat(details?: unknown): void;
  update(details: unknown): void;
  stop(): void;
}

const NONE: KeepAlive = { beat: () => undefined, update: () => undefined, stop: () => undefined };

/**
 * Starts the timed heartbeats of the current activity (none for a local one, which the server does not track). The
 * first goes out one interval after the start: a call that is done by then costs the server no heartbeat write. A tick
 * right after a heartbeat the activity sent itself is skipped.
 */
export function keepAlive(context: Context | undefined, details?: unknown): KeepAlive {
  if (!context || context.info.isLocal) return NONE;
  // A third of the activity's heartbeat timeout, so two heartbeats may be late before the server gives up on it.
  const timeoutMs = context.info.heartbeatTimeoutMs;
  const intervalMs = timeoutMs ? Math.max(50, Math.min(HEARTBEAT_INTERVAL_MS, timeoutMs / 3)) : HEARTBEAT_INTERVAL_MS;
  let latest = details;
  let sentAt = performance.now();
  const send = (value: unknown): void => {
    sentAt = performance.now();
    context.heartbeat(value);
  };
  const timer = setInterval(() => {
    if (performance.now() - sentAt >= intervalMs / 2) send(latest);
  }, intervalMs);
  timer.unref();
  return {
    beat: (value) => {
      latest = value;
      send(value);
    },
    update: (value) => {
      latest = value;
    },
    stop: () => clearInterval(timer),
  };
}
