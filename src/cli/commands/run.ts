// Node: `run` and `start`: a task started from run's options (cli/run-task), followed or left running.
import type { Config } from '../../config.js';
import { runTask } from '../run-task.js';

/** `run`: starts a task and follows it to its end (Ctrl-C detaches). */
export async function runCommand(argv: string[], config: Config): Promise<number> {
  return await runTask(argv, config);
}

/** `start`: `run --detach`. */
export async function startCommand(argv: string[], config: Config): Promise<number> {
  return await runTask(argv, config, true);
}
