// The CLI's commands, in the order `--help` lists them: name, arguments, one line of help, the option table and the
// handler. Tables and handlers are imported when their command needs them, so `--help` (and every command) loads only
// what it uses.
import type { Config } from '../config.js';
import type { CommandOptions } from './option-table.js';

/** Runs a command with its arguments (after the command name) and returns the process exit code. */
export type CommandHandler = (argv: string[], config: Config) => Promise<number>;

/**
 * Answers a command without the configuration or the Temporal client when it can (through the embedded server's HTTP
 * API); undefined hands the command over to its handler.
 */
export type FastHandler = (argv: string[], env: NodeJS.ProcessEnv) => Promise<number | undefined>;

/** One command of the CLI. */
export interface Command {
  name: string;
  /** What follows the name in the command list: `ID CALL`, `"<task>"`. */
  arguments: string;
  /** One line for the command list. */
  summary: string;
  /** Imports the command's option table: its parsing, `--help` and README reference (see option-table.ts). */
  loadOptions(): Promise<CommandOptions>;
  /** Imports the command's module and returns its handler. */
  load(): Promise<CommandHandler>;
  /** Imports the command's module and returns its fast path, tried before the handler. */
  loadFast?(): Promise<FastHandler>;
}

/** Every command, in the order `durable-agent --help` lists them. */
export const COMMANDS: readonly Command[] = [
  {
    name: 'run',
    arguments: '"<task>"',
    summary: 'run a task and follow it (Ctrl-C detaches)',
    loadOptions: async () => (await import('./options/run.js')).runOptions,
    load: async () => (await import('./commands/run.js')).runCommand,
  },
  {
    name: 'start',
    arguments: '"<task>"',
    summary: 'start a task and return at once (= run --detach)',
    loadOptions: async () => (await import('./options/run.js')).startOptions,
    load: async () => (await import('./commands/run.js')).startCommand,
  },
  {
    name: 'watch',
    arguments: 'ID',
    summary: 'follow a run',
    loadOptions: async () => (await import('./options/runs.js')).watchOptions,
    load: async () => (await import('./commands/watch.js')).watchCommand,
  },
  {
    name: 'status',
    arguments: 'ID',
    summary: "show a run's status (--json for scripts)",
    loadOptions: async () => (await import('./options/runs.js')).statusOptions,
    load: async () => (await import('./commands/status.js')).statusCommand,
    loadFast: async () => (await import('./commands/status.js')).statusFast,
  },
  {
    name: 'approve',
    arguments: 'ID CALL',
    summary: 'approve a tool call waiting for a decision',
    loadOptions: async () => (await import('./options/runs.js')).approveOptions,
    load: async () => (await import('./commands/approve.js')).approveCommand,
  },
  {
    name: 'deny',
    arguments: 'ID CALL',
    summary: 'reject a tool call waiting for a decision',
    loadOptions: async () => (await import('./options/runs.js')).denyOptions,
    load: async () => (await import('./commands/approve.js')).denyCommand,
  },
  {
    name: 'say',
    arguments: 'ID "<message>"',
    summary: 'send a running run a message, read at its next step',
    loadOptions: async () => (await import('./options/control.js')).sayOptions,
    load: async () => (await import('./commands/say.js')).sayCommand,
  },
  {
    name: 'interrupt',
    arguments: 'ID ["<message>"]',
    summary: 'stop the model call or command under way; the run goes on with the message',
    loadOptions: async () => (await import('./options/control.js')).interruptOptions,
    load: async () => (await import('./commands/interrupt.js')).interruptCommand,
  },
  {
    name: 'pause',
    arguments: 'ID ["<reason>"]',
    summary: 'stop a run at its next step boundary until resume',
    loadOptions: async () => (await import('./options/control.js')).pauseOptions,
    load: async () => (await import('./commands/pause.js')).pauseCommand,
  },
  {
    name: 'resume',
    arguments: 'ID',
    summary: 'let a paused run go on',
    loadOptions: async () => (await import('./options/control.js')).resumeOptions,
    load: async () => (await import('./commands/pause.js')).resumeCommand,
  },
  {
    name: 'continue',
    arguments: 'ID "<request>"',
    summary: "the next request of a task's conversation (a closed task goes on in a new run)",
    loadOptions: async () => (await import('./options/control.js')).continueOptions,
    load: async () => (await import('./commands/continue.js')).continueCommand,
  },
  {
    name: 'cancel',
    arguments: 'ID',
    summary: 'cancel a run and wait for it to close',
    loadOptions: async () => (await import('./options/runs.js')).cancelOptions,
    load: async () => (await import('./commands/cancel.js')).cancelCommand,
  },
  {
    name: 'list',
    arguments: '',
    summary: 'list runs (--status, --pending-approvals, --min-cost)',
    loadOptions: async () => (await import('./options/runs.js')).listOptions,
    load: async () => (await import('./commands/list.js')).listCommand,
    loadFast: async () => (await import('./commands/list.js')).listFast,
  },
  {
    name: 'history',
    arguments: 'ID',
    summary: 'show a run step by step from its event history',
    loadOptions: async () => (await import('./options/runs.js')).historyOptions,
    load: async () => (await import('./commands/history.js')).historyCommand,
  },
  {
    name: 'diff',
    arguments: 'ID',
    summary: "show what a run (or --step N) changed in its workspace's files, Bash's changes included",
    loadOptions: async () => (await import('./options/runs.js')).diffOptions,
    load: async () => (await import('./commands/diff.js')).diffCommand,
  },
  {
    name: 'rewind',
    arguments: 'ID --to-step N',
    summary: "set a run's workspace back to its files after step N (--conversation: and fork from there)",
    loadOptions: async () => (await import('./options/runs.js')).rewindOptions,
    load: async () => (await import('./commands/rewind.js')).rewindCommand,
  },
  {
    name: 'fork',
    arguments: 'ID --from-step N',
    summary: "start a new run from a run's state after step N (e.g. with another --model)",
    loadOptions: async () => (await import('./options/run.js')).forkOptions,
    load: async () => (await import('./commands/fork.js')).forkCommand,
  },
  {
    name: 'replay',
    arguments: 'ID|FILE',
    summary: 'check that the current workflow code replays a recorded run',
    loadOptions: async () => (await import('./options/runs.js')).replayOptions,
    load: async () => (await import('./commands/replay.js')).replayCommand,
  },
  {
    name: 'output',
    arguments: 'KEY',
    summary: 'print stored content (a transcript node, a tool result, an answer) by its key',
    loadOptions: async () => (await import('./options/runs.js')).outputOptions,
    load: async () => (await import('./commands/output.js')).outputCommand,
  },
  {
    name: 'gc',
    arguments: '',
    summary: 'delete stored content no open run refers to (--older-than 30d, --dry-run)',
    loadOptions: async () => (await import('./options/runs.js')).gcOptions,
    load: async () => (await import('./commands/gc.js')).gcCommand,
  },
  {
    name: 'worker',
    arguments: '',
    summary: 'run a worker',
    loadOptions: async () => (await import('./options/services.js')).workerOptions,
    load: async () => (await import('./commands/worker.js')).workerCommand,
  },
  {
    name: 'dev-server',
    arguments: '',
    summary: 'start, inspect (--status) or stop (--stop) the embedded Temporal server and worker',
    loadOptions: async () => (await import('./options/services.js')).devServerOptions,
    load: async () => (await import('./commands/dev-server.js')).devServerCommand,
  },
  {
    name: 'codec-server',
    arguments: '',
    summary: "serve the Web UI's codec endpoint: stored content shown in place of its keys",
    loadOptions: async () => (await import('./options/services.js')).codecServerOptions,
    load: async () => (await import('./commands/codec-server.js')).codecServerCommand,
  },
  {
    name: 'demo',
    arguments: '',
    summary: 'fix the bug in examples/demo on a copy, end to end',
    loadOptions: async () => (await import('./options/run.js')).demoOptions,
    load: async () => (await import('./commands/demo.js')).demoCommand,
  },
];

/** The command called `name`, if there is one. */
export function findCommand(name: string): Command | undefined {
  return COMMANDS.find((command) => command.name === name);
}

/** `durable-agent --help`: the command list, generated from COMMANDS. */
export function usage(): string {
  const invocations = COMMANDS.map((command) => `${command.name} ${command.arguments}`.trim());
  const width = Math.max(...invocations.map((invocation) => invocation.length));
  const lines = COMMANDS.map((command, index) => `  ${invocations[index]!.padEnd(width)}  ${command.summary}`);
  return [
    'Usage: durable-agent <command> [options]',
    '',
    'Commands:',
    ...lines,
    '',
    'Run "durable-agent <command> --help" for a command\'s options.',
  ].join('\n');
}
