import { ConfigError, loadConfig } from '../config.js';
import { devServerCommand, devServerHelp } from './commands/dev-server.js';
import { demoCommand, demoHelp } from './commands/demo.js';
import { runCommand, runHelp } from './commands/run.js';
import { statusCommand, statusHelp, watchCommand, watchHelp } from './commands/status.js';
import { workerCommand, workerHelp } from './commands/worker.js';
import { EXIT, UsageError } from './exit-codes.js';
import { color, log } from './output.js';

const usage = `Usage: durable-agent <command> [options]

Commands:
  run "<task>"     run a task and follow it (Ctrl-C detaches)
  start "<task>"   start a task and return at once (= run --detach)
  watch ID         follow a run
  status ID        show a run's status (--json for scripts)
  worker           run a worker
  dev-server       start, inspect (--status) or stop (--stop) the embedded Temporal server and worker
  demo             fix the bug in examples/demo on a copy, end to end

Run "durable-agent <command> --help" for a command's options.`;

const helps: Record<string, string> = {
  run: runHelp,
  start: runHelp,
  watch: watchHelp,
  status: statusHelp,
  worker: workerHelp,
  'dev-server': devServerHelp,
  demo: demoHelp,
};

/** The CLI: returns the process exit code. */
export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  try {
    if (!command || command === '--help' || command === '-h' || command === 'help') {
      const topic = rest[0];
      process.stdout.write(`${topic && Object.hasOwn(helps, topic) ? helps[topic] : usage}\n`);
      return command ? EXIT.finished : EXIT.usage;
    }
    const config = loadConfig();
    switch (command) {
      case 'run':
        return await runCommand(rest, config);
      case 'start':
        return await runCommand(rest, config, true);
      case 'status':
        return await statusCommand(rest, config);
      case 'watch':
        return await watchCommand(rest, config);
      case 'worker':
        return await workerCommand(rest, config);
      case 'dev-server':
        return await devServerCommand(rest);
      case 'demo':
        return await demoCommand(rest, config);
      default:
        throw new UsageError(`Unknown command "${command}".\n\n${usage}`);
    }
  } catch (error) {
    if (error instanceof UsageError || error instanceof ConfigError || isParseArgsError(error)) {
      log(color.red(`error: ${(error as Error).message}`));
      return EXIT.usage;
    }
    log(color.red(`error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`));
    return EXIT.failed;
  }
}

function isParseArgsError(error: unknown): boolean {
  return error instanceof TypeError && 'code' in error && String(error.code).startsWith('ERR_PARSE_ARGS');
}
