// While a command waits on a run of the embedded server, the background worker that run needs is kept alive: one that
// died (killed, out of memory, crashed) is restarted within seconds, not whenever some later command starts one.
import { setTimeout as sleep } from 'node:timers/promises';
import { ensureDevWorker } from './background.js';
import type { EnsureDevWorkerOptions } from './background.js';
import { isOurProcess, logTail, logToStderr } from './processes.js';
import { readRecord, stateDirectoryOf } from './state-record.js';

const CHECK_INTERVAL_MS = 2_000;
// A worker that cannot start (a bad setting) is tried again, but less and less often, not every two seconds.
const MAX_RETRY_INTERVAL_MS = 60_000;
const LOG_TAIL_LINES = 5;

/** Options of `superviseDevWorker`: how to start the worker, as for `ensureDevWorker`. */
export interface SuperviseDevWorkerOptions extends Omit<EnsureDevWorkerOptions, 'taskQueue' | 'connection'> {
  /** How often to check (default 2 s). */
  intervalMs?: number;
}

/** A running supervision. */
export interface DevWorkerSupervision {
  /** Stops checking; resolves once a restart in progress has finished (the state lock is released). */
  stop(): Promise<void>;
}

/**
 * Checks every `intervalMs` that the recorded background worker is alive (pid and command line, no RPC) and restarts a
 * dead one through `ensureDevWorker`, under the state lock: several attached CLIs bring back one worker, not one each.
 */
export function superviseDevWorker(options: SuperviseDevWorkerOptions): DevWorkerSupervision {
  const directory = stateDirectoryOf(options);
  const log = options.log ?? logToStderr;
  const intervalMs = options.intervalMs ?? CHECK_INTERVAL_MS;
  const stopping = new AbortController();
  const loop = (async () => {
    let delay = intervalMs;
    while (!stopping.signal.aborted) {
      // Unreferenced: a command that forgets to stop the supervision still exits.
      await sleep(delay, undefined, { signal: stopping.signal, ref: false }).catch(() => undefined);
      if (stopping.signal.aborted) return;
      try {
        const restarted = await restartIfDead(directory, options);
        if (restarted) log(restarted);
        delay = intervalMs;
      } catch (error) {
        log(`the background worker is not running and could not be restarted: ${messageOf(error)}`);
        delay = Math.min(delay * 2, MAX_RETRY_INTERVAL_MS);
      }
    }
  })();
  return {
    stop: async () => {
      stopping.abort();
      await loop;
    },
  };
}

/** Restarts the worker when it is gone while the server runs; returns the line to print, if it did. */
async function restartIfDead(directory: string, options: SuperviseDevWorkerOptions): Promise<string | undefined> {
  const { server, worker } = await readRecord(directory);
  if (worker && (await isOurProcess(worker))) return undefined;
  // A stopped server (dev-server --stop) was stopped on purpose, and its worker with it.
  if (!server || !(await isOurProcess(server))) return undefined;
  // Read before the restart appends to the same log: the dead worker's last words say why it died.
  const tail = worker ? await logTail(worker.logFile, LOG_TAIL_LINES) : undefined;
  const started = await ensureDevWorker({ ...options, log: () => undefined });
  // Another attached CLI got the lock first and restarted it.
  if (started.reused) return undefined;
  if (!worker) return `no background worker was running; started one as pid ${started.pid} (log: ${started.logFile})`;
  return (
    `background worker (pid ${worker.pid}) exited; restarted as pid ${started.pid}. ` +
    `The end of its log (${worker.logFile}):\n${tail}`
  );
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
