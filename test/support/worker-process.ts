// Agent workers in their own processes, so a test can SIGKILL one mid-activity (or measure its memory alone), and a
// workflow bundle written to a file once, so each of them starts without bundling. The worker's own code runs compiled
// (compiled-entry.ts): through tsx's module hooks a worker process spent about 1.7 s of CPU starting, which — with a
// dozen of them starting at once on a small machine — slowed every other process's work.
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleWorkflowCode } from '@temporalio/worker';
import { execa } from 'execa';
import type { ResultPromise } from 'execa';
import { expect } from 'vitest';
import { compiledEntry } from './compiled-entry.js';
import { TEST_FILE_VARIABLE } from './slow-tasks.js';
import { agentBundleOptions } from '../../src/worker.js';

/** What the worker process is told (as one JSON argument). */
export interface WorkerProcessConfig {
  address: string;
  taskQueue: string;
  /** The content store directory; the workers of one deployment share it. */
  storeDir: string;
  /** A workflow bundle file (see writeWorkflowBundle). */
  bundlePath: string;
  /** Stop every WriteFile and EditFile just before its rename, after writing this marker file. */
  pauseBeforeCommit?: string;
  /** Overrides the worker's (see AgentWorkerOptions), e.g. to hold a dead worker's task on its queue for longer. */
  stickyQueueScheduleToStartTimeoutMs?: number;
  /** Added to the worker's environment (its settings). */
  env?: Record<string, string>;
  /** A command the worker runs under, its own command line appended (`unshare -rm sh -c '… && exec "$@"' …`). */
  launcher?: string[];
}

/** A running worker process. */
export interface WorkerProcess {
  pid: number;
  /** Its stdout and stderr so far, for a failing test's message. */
  output(): string;
  /** SIGKILLs it and waits until it is gone. */
  kill(): Promise<void>;
  /** SIGTERM (the worker drains), SIGKILL after 10 s. */
  stop(): Promise<void>;
}

const main = fileURLToPath(new URL('./worker-process-main.ts', import.meta.url));
const ignore = (): undefined => undefined;
const quietLogger = { log: ignore, trace: ignore, debug: ignore, info: ignore, warn: ignore, error: ignore };

/**
 * Bundles the workflows once (with the tracing interceptors when `tracing`, for workers that export traces) and writes
 * the code to `<directory>/workflow-bundle.js` (or `-traced.js`); returns that path.
 */
export async function writeWorkflowBundle(directory: string, options: { tracing?: boolean } = {}): Promise<string> {
  const { code } = await bundleWorkflowCode({ ...agentBundleOptions(options), logger: quietLogger });
  const file = path.join(directory, options.tracing ? 'workflow-bundle-traced.js' : 'workflow-bundle.js');
  await writeFile(file, code);
  return file;
}

/** The test file being run, or undefined outside a test (`npm run soak`, where vitest has no state to ask). */
function currentTestFile(): string | undefined {
  try {
    return expect.getState().testPath;
  } catch {
    return undefined;
  }
}

/** Starts a worker process and resolves once it polls its task queue. */
export async function startWorkerProcess(config: WorkerProcessConfig): Promise<WorkerProcess> {
  const command = [...(config.launcher ?? []), process.execPath, await compiledEntry(main), JSON.stringify(config)];
  const child: ResultPromise = execa(command[0]!, command.slice(1), {
    reject: false,
    all: true,
    stdin: 'ignore',
    env: { [TEST_FILE_VARIABLE]: currentTestFile() },
  });
  let output = '';
  let ended = false;
  const ready = new Promise<void>((resolve, reject) => {
    child.all?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('ready\n')) resolve();
    });
    void child.then(() => {
      ended = true;
      reject(new Error('it exited'));
    });
    setTimeout(() => reject(new Error('it was not polling within 60 s')), 60_000).unref();
  });
  try {
    await ready;
  } catch (error) {
    child.kill('SIGKILL');
    await child;
    throw new Error(`the worker process did not start (${(error as Error).message}):\n${output}`);
  }
  return {
    pid: child.pid!,
    output: () => output,
    kill: async () => {
      child.kill('SIGKILL');
      await child;
    },
    stop: async () => {
      if (ended) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await child;
      clearTimeout(timer);
    },
  };
}
