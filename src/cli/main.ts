// The CLI's entry: finds the command in the command table, prints help generated from it, loads the command's module
// and the configuration only when the command runs, and turns errors into exit codes.
import { findCommand, usage } from './command-table.js';
import type { Command } from './command-table.js';
import { CommandFailure, EXIT, UsageError } from './exit-codes.js';
import { visibleLines } from '../core/terminal-text.js';
import { color, log, out } from './output.js';

/** The CLI: returns the process exit code. */
export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  try {
    if (!name || name === '--help' || name === '-h' || name === 'help') {
      const topic = rest[0] === undefined ? undefined : findCommand(rest[0]);
      out(`${topic ? await helpOf(topic) : usage()}\n`);
      return name ? EXIT.finished : EXIT.usage;
    }
    const command = findCommand(name);
    if (!command) throw new UsageError(`Unknown command "${name}".\n\n${usage()}`);
    if (rest.includes('--help') || rest.includes('-h')) {
      out(`${await helpOf(command)}\n`);
      return EXIT.finished;
    }
    if (command.loadFast) {
      const answered = await (await command.loadFast())(rest, process.env);
      if (answered !== undefined) return answered;
    }
    // The configuration parses the environment with zod: loaded beside the command, not before `--help`.
    const [{ loadConfig }, handler] = await Promise.all([import('../config.js'), command.load()]);
    return await handler(rest, loadConfig());
  } catch (error) {
    // An error's message may quote the model, a tool or a server: shown, never acted on.
    if (error instanceof UsageError || isConfigError(error) || isParseArgsError(error)) {
      log(color.red(`error: ${visibleLines((error as Error).message)}`));
      return EXIT.usage;
    }
    // An id that names no run is the caller's mistake, like a bad argument: said in one line, for every command.
    if (error instanceof Error && error.name === 'WorkflowNotFoundError') {
      const { workflowId, runId } = error as Error & { workflowId?: string; runId?: string };
      log(
        color.red(visibleLines(`error: no run ${workflowId ?? ''}${runId ? ` with run id ${runId}` : ''}`.trimEnd())),
      );
      return EXIT.usage;
    }
    if (error instanceof CommandFailure) {
      log(color.red(`error: ${visibleLines(error.message)}`));
      return EXIT.failed;
    }
    log(color.red(`error: ${visibleLines(error instanceof Error ? (error.stack ?? error.message) : String(error))}`));
    return EXIT.failed;
  }
}

/** `durable-agent <name> --help`, generated from the command's option table. */
async function helpOf(command: Command): Promise<string> {
  const [{ commandHelp }, options] = await Promise.all([import('./option-table.js'), command.loadOptions()]);
  return commandHelp(command.name, options);
}

// By name: importing ConfigError would load the configuration module (and zod) for every command, `--help` included.
function isConfigError(error: unknown): boolean {
  return error instanceof Error && error.name === 'ConfigError';
}

function isParseArgsError(error: unknown): boolean {
  return error instanceof TypeError && 'code' in error && String(error.code).startsWith('ERR_PARSE_ARGS');
}
