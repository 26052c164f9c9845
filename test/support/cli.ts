// The real CLI, spawned as a user would run it (the compiled dist/, brought up to date by the global setup), pointed at
// the shared test server and a harness's task queue.
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { afterAll, beforeAll, expect } from 'vitest';
import type { Harness } from './harness.js';
import { startHarness, temporalAddress } from './harness.js';

/** Path of the `durable-agent` entry point. */
export const durableAgentBin = fileURLToPath(new URL('../../bin/durable-agent.js', import.meta.url));

/** Runs `durable-agent <args>` to completion; never rejects, so tests read exitCode, stdout and stderr. */
export type CliRunner = (args: string[], env?: Record<string, string>) => ReturnType<typeof runCli>;

/**
 * A runner for the CLI against `harness`: only TEMPORAL_ADDRESS, DURABLE_AGENT_TASK_QUEUE and `env` reach the child
 * (no inherited API keys or settings), and stdin is closed so a prompt can never wait for input.
 */
export function cliRunner(harness: Pick<Harness, 'taskQueue'>): CliRunner {
  return (args, env = {}) => runCli(harness.taskQueue, args, env);
}

function runCli(taskQueue: string, args: string[], env: Record<string, string>) {
  return execa(process.execPath, [durableAgentBin, ...args], {
    env: { TEMPORAL_ADDRESS: temporalAddress(), DURABLE_AGENT_TASK_QUEUE: taskQueue, ...env },
    extendEnv: false,
    reject: false,
    stdin: 'ignore',
  });
}

/**
 * `durable-agent start --json <args>` through `run` (a harness's runner, or an operator's CLI): the run it left running
 * (exit code 4), by its workflow id.
 */
export async function startDetached(
  run: (args: string[]) => Promise<{ exitCode?: number | undefined; stdout: string; stderr: string }>,
  args: string[],
): Promise<string> {
  const started = await run(['start', '--json', ...args]);
  expect(started.exitCode, started.stderr).toBe(4);
  return (JSON.parse(started.stdout) as { workflowId: string }).workflowId;
}

/** A test file's harness and a CLI runner against it. */
export interface CliSuite {
  /** The harness: a worker on the shared test server; there from the file's beforeAll on. */
  readonly harness: Harness;
  /** Runs the CLI against the harness. */
  readonly cli: CliRunner;
}

/**
 * The prologue of a CLI end-to-end file: starts a harness (with `env`, or what `env()` gives once the file's other
 * setup has run) before the file's tests and closes it after them.
 */
export function cliSuite(env?: NodeJS.ProcessEnv | (() => Promise<NodeJS.ProcessEnv>)): CliSuite {
  let harness: Harness | undefined;
  beforeAll(async () => {
    const workerEnv = typeof env === 'function' ? await env() : env;
    harness = await startHarness(...(workerEnv ? [workerEnv] : []));
  });
  afterAll(async () => {
    await harness?.close();
  });
  const started = (): Harness => {
    if (!harness) throw new Error('the harness starts in beforeAll; use it inside tests and hooks');
    return harness;
  };
  return {
    get harness() {
      return started();
    },
    cli: (args, childEnv) => cliRunner(started())(args, childEnv),
  };
}
