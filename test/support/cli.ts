// The real CLI, spawned as a user would run it (the compiled dist/, brought up to date by the global setup), pointed at
// the shared test server and a harness's task queue.
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import type { Harness } from './harness.js';
import { temporalAddress } from './harness.js';

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
