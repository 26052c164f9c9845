import { ConfigError, loadConfig } from '../config.js';
import { EXIT, UsageError } from './exit-codes.js';
import {
  approveHelp,
  cancelHelp,
  codecServerHelp,
  demoHelp,
  denyHelp,
  devServerHelp,
  gcHelp,
  historyHelp,
  listHelp,
  outputHelp,
  replayHelp,
  runHelp,
  statusHelp,
  watchHelp,
  workerHelp,
} from './help.js';
import { color, log } from './output.js';

const usage = `Usage: durable-agent <command> [options]

Commands:
  run "<task>"     run a task and follow it (Ctrl-C detaches)
  start "<task>"   start a task and return at once (= run --detach)
  watch ID         follow a run
  status ID        show a run's status (--json for scripts)
  approve ID CALL  approve a tool call waiting for a decision
  deny ID CALL     reject a tool call waiting for a decision
  cancel ID        cancel a run and wait for it to close
  list             list runs (--status, --pending-approvals, --min-cost)
  history ID       show a run step by step from its event history
  replay ID|FILE   check that the current workflow code replays a recorded run
  output KEY       print stored content (a transcript node, a tool result, an answer) by its key
  gc               delete stored content no open run refers to (--older-than 30d, --dry-run)
  worker           run a worker
  dev-server       start, inspect (--status) or stop (--stop) the embedded Temporal server and worker
  codec-server     serve the Web UI's codec endpoint: stored content shown in place of its keys
  demo             fix the bug in examples/demo on a copy, end to end

Run "durable-agent <command> --help" for a command's options.`;

const helps: Record<string, string> = {
  run: runHelp,
  start: runHelp,
  watch: watchHelp,
  status: statusHelp,
  approve: approveHelp,
  deny: denyHelp,
  cancel: cancelHelp,
  list: listHelp,
  history: historyHelp,
  replay: replayHelp,
  output: outputHelp,
  gc: gcHelp,
  worker: workerHelp,
  'dev-server': devServerHelp,
  'codec-server': codecServerHelp,
  demo: demoHelp,
};

// Commands are loaded on demand: the Temporal client alone takes over a second to load, and `--help` needs none of it.
async function dispatch(command: string, argv: string[]): Promise<number> {
  const config = loadConfig();
  switch (command) {
    case 'run':
      return (await import('./commands/run.js')).runCommand(argv, config);
    case 'start':
      return (await import('./commands/run.js')).runCommand(argv, config, true);
    case 'status':
      return (await import('./commands/status.js')).statusCommand(argv, config);
    case 'watch':
      return (await import('./commands/status.js')).watchCommand(argv, config);
    case 'approve':
      return (await import('./commands/approve.js')).approveCommand(argv, config);
    case 'deny':
      return (await import('./commands/approve.js')).denyCommand(argv, config);
    case 'cancel':
      return (await import('./commands/cancel.js')).cancelCommand(argv, config);
    case 'list':
      return (await import('./commands/list.js')).listCommand(argv, config);
    case 'history':
      return (await import('./commands/history.js')).historyCommand(argv, config);
    case 'replay':
      return (await import('./commands/replay.js')).replayCommand(argv, config);
    case 'output':
      return (await import('./commands/output.js')).outputCommand(argv);
    case 'gc':
      return (await import('./commands/gc.js')).gcCommand(argv, config);
    case 'worker':
      return (await import('./commands/worker.js')).workerCommand(argv, config);
    case 'dev-server':
      return (await import('./commands/dev-server.js')).devServerCommand(argv);
    case 'codec-server':
      return (await import('./commands/codec-server.js')).codecServerCommand(argv);
    case 'demo':
      return (await import('./commands/demo.js')).demoCommand(argv, config);
    default:
      throw new UsageError(`Unknown command "${command}".\n\n${usage}`);
  }
}

/** The CLI: returns the process exit code. */
export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  try {
    if (!command || command === '--help' || command === '-h' || command === 'help') {
      const topic = rest[0];
      process.stdout.write(`${topic && Object.hasOwn(helps, topic) ? helps[topic] : usage}\n`);
      return command ? EXIT.finished : EXIT.usage;
    }
    if (Object.hasOwn(helps, command) && (rest.includes('--help') || rest.includes('-h'))) {
      process.stdout.write(`${helps[command]}\n`);
      return EXIT.finished;
    }
    return await dispatch(command, rest);
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
