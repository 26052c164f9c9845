// The directory content store's disk fills up while a model call is in flight: the store lives on a small tmpfs of
// the worker's own (the worker runs under `unshare -rm`, so this needs no root: a user namespace may mount a tmpfs),
// the test fills it to the last byte through /proc/<pid>/root, keeps it full for a while, then frees the space. The
// run must wait, name the full disk where an operator looks, leave no truncated object or temp file under the store,
// and go on once there is room; the model is asked once a turn and every tool result reaches it.
import { createHash } from 'node:crypto';
import { mkdtemp, open, readFile, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { finishFaultRun, startFaultRun } from './fault-run.js';
import type { FaultEnv, FaultOutcome } from './fault-run.js';
import { faultMarker } from './markers.js';
import { pendingFailures } from './pending-failures.js';
import { toolResult } from '../tool-result.js';
import { waitFor } from '../wait.js';

const ANSWER = 'Both files are written; the run waited for room in the store.';
/** Over the transcript's inline limit, so the turn's argument has to be stored while the disk is full. */
const LARGE = `${'x'.repeat(99)}\n`.repeat(640);

/** What the operator saw while the disk was full, and what the store held then. */
export interface StoreDiskFullOutcome extends FaultOutcome {
  storeDir: string;
  operatorMessages: string[];
  /** Objects under the store whose bytes do not hash to their name, and temp files left, while the disk was full. */
  badObjects: string[];
  objectsWhileFull: number;
  toolResults: string[];
  modelRequests: number;
  /** From the fault to its end (the store answering again, the space freed), and from then to the next model call. */
  faultMs: number;
  afterFaultMs: number;
}

export async function storeDiskFull(env: FaultEnv, options: { fullMs: number }): Promise<StoreDiskFullOutcome> {
  const mountPoint = await mkdtemp(path.join(os.tmpdir(), 'durable-agent-store-disk-'));
  try {
    const { run, first } = await startFaultRun(env, {
      workerEnv: { DURABLE_AGENT_STORE_DIR: mountPoint },
      // A private mount namespace (and user namespace, so root is not needed) with a 4 MiB tmpfs on the store.
      launcher: ['unshare', '-rm', 'sh', '-c', 'mount -t tmpfs -o size=4m tmpfs "$0" && exec "$@"', mountPoint],
      script: [
        { tool_calls: [{ id: 'before', name: 'WriteFile', arguments: { path: 'one.txt', content: 'one\n' } }] },
        // Answered while the disk is full: the answer has to be stored once there is room, not asked for again.
        {
          delay_ms: 1_000,
          tool_calls: [{ id: 'during', name: 'WriteFile', arguments: { path: 'large.txt', content: LARGE } }],
        },
        { content: ANSWER },
      ],
    });
    try {
      // The worker's view of its tmpfs, from outside its mount namespace.
      const store = `/proc/${first.pid}/root${mountPoint}`;
      await waitFor(async () => (run.servedAt.has(2) ? true : undefined), 'the second model call', faultMarker);
      const faultAt = Date.now();
      const filler = path.join(store, 'filler');
      await fill(filler);
      const seen = new Set<string>();
      while (Date.now() - faultAt < options.fullMs) {
        for (const message of await pendingFailures(run.handle)) seen.add(message);
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
      const { bad, count } = await checkObjects(store);
      await rm(filler);
      const freedAt = Date.now();
      const outcome = await finishFaultRun(run, {
        scenario: `directory store disk full for ${Math.round(options.fullMs / 1000)} s`,
        faultAt,
        answer: ANSWER,
        files: { 'one.txt': 'one\n', 'large.txt': LARGE },
      });
      const last = run.model.requests.at(-1)!.messages;
      const resumedAt = [...run.servedAt.values()].filter((at) => at > freedAt).sort((a, b) => a - b)[0];
      return {
        ...outcome,
        storeDir: mountPoint,
        operatorMessages: [...seen],
        badObjects: [...bad, ...(await checkObjects(store)).bad],
        objectsWhileFull: count,
        toolResults: ['before', 'during'].map((id) => `${id}: ${toolResult(last, id).status}`),
        modelRequests: run.model.requests.length,
        faultMs: freedAt - faultAt,
        afterFaultMs: resumedAt === undefined ? Number.NaN : resumedAt - freedAt,
        notes: [
          `disk full ${freedAt - faultAt} ms`,
          `next model call ${resumedAt === undefined ? 'never' : `${resumedAt - freedAt} ms`} after space was freed`,
        ],
      };
    } finally {
      await run.close();
    }
  } finally {
    await rm(mountPoint, { recursive: true, force: true });
  }
}

/** Writes zeros to `file` until the filesystem has no room left. */
async function fill(file: string): Promise<void> {
  const handle = await open(file, 'w');
  const chunk = Buffer.alloc(64 * 1024);
  try {
    for (;;) await handle.write(chunk);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
  } finally {
    await handle.close().catch(() => undefined);
  }
}

/** Every file under `<store>/objects`: a name that is not a content key, or bytes that do not hash to it, is bad. */
async function checkObjects(store: string): Promise<{ bad: string[]; count: number }> {
  const objects = path.join(store, 'objects');
  const names = (await readdir(objects, { recursive: true, withFileTypes: true }).catch(() => []))
    .filter((entry) => entry.isFile())
    .map((entry) => path.relative(objects, path.join(entry.parentPath, entry.name)));
  const bad: string[] = [];
  for (const name of names) {
    const [prefix, rest] = name.split(path.sep);
    const bytes = await readFile(path.join(objects, name));
    const hex = createHash('sha256').update(bytes).digest('hex');
    if (!/^[0-9a-f]{2}$/.test(prefix ?? '') || `${prefix}${rest}` !== hex) bad.push(`${name} (${bytes.length} bytes)`);
  }
  return { bad, count: names.length };
}
