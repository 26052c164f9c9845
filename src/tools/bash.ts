// Workflow-safe contract of Bash (docs/tools.md §11.6). The executor is activities/executors/bash.ts.
import { z } from 'zod';
import { defineTool, shorten } from './define-tool.js';

const input = z
  .object({
    command: z.string().min(1).max(10000).describe('The bash command line to run.'),
    cwd: z.string().min(1).default('.').describe('Working directory, relative to the workspace root.'),
    timeout_ms: z.number().int().min(1).max(600000).default(120000).describe('Kill the command after this many ms.'),
    description: z.string().max(200).optional().describe('What the command does, in a few words (shown to approvers).'),
  })
  .strict();

/** Bash leaves the command running for its own timeout plus this margin before Temporal gives up on the activity. */
const ACTIVITY_MARGIN_MS = 15_000;

/** Runs a shell command in the workspace. */
export const bash = defineTool({
  name: 'Bash',
  description: [
    'Run a bash command in the workspace (non-interactive: stdin is empty, no TTY, no pager).',
    'stdout and stderr are returned separately; a non-zero exit code is reported, not an error.',
    'Long output is cut in the middle and saved in full to a file you can ReadFile. Do not use it to read or edit files: use ReadFile/EditFile.',
  ].join(' '),
  inputSchema: input,
  profiles: { 'code-edit': 'pinned', ops: 'pinned' },
  promptRole: 'check',
  category: 'command',
  confirmation: 'command',
  isConcurrencySafe: () => false,
  pathParams: ['cwd'],
  aliases: ['bash', 'shell', 'run_shell_command', 'run_command'],
  parameterAliases: [
    { from: 'cmd', to: 'command' },
    { from: 'script', to: 'command' },
    { from: 'cmdline', to: 'command' },
    { from: 'directory', to: 'cwd' },
    { from: 'dir_path', to: 'cwd' },
    { from: 'workdir', to: 'cwd' },
    { from: 'working_directory', to: 'cwd' },
    { from: 'timeout', to: 'timeout_ms' },
  ],
  // Not idempotent: a command is never re-run by Temporal (§14).
  activity: (args) => ({ startToCloseTimeoutMs: args.timeout_ms + ACTIVITY_MARGIN_MS, maximumAttempts: 1 }),
  summarize: (args) => `Bash ${shorten(args.command, 100)}${args.cwd === '.' ? '' : ` (in ${args.cwd})`}`,
});
