// Workflow-safe contract of Grep (docs/tools.md §11.5). The executor is activities/executors/grep.ts.
import { z } from 'zod';
import { shellQuote } from './shell-quote.js';
import { defineTool, shorten } from './define-tool.js';

const input = z
  .object({
    pattern: z
      .string()
      .min(1)
      .max(1000)
      .describe('JavaScript regular expression (or literal text with fixed_strings).'),
    path: z.string().min(1).default('.').describe('Directory or file to search, relative to the workspace root.'),
    glob: z.string().min(1).optional().describe('Only search files matching this glob, relative to path.'),
    case_sensitive: z.boolean().default(false).describe('Match case exactly (default: case-insensitive).'),
    fixed_strings: z.boolean().default(false).describe('Treat pattern as literal text.'),
    output_mode: z
      .enum(['content', 'files_with_matches', 'count'])
      .default('content')
      .describe('content: matching lines; files_with_matches: file names; count: matches per file.'),
    context: z.number().int().min(0).max(10).default(0).describe('Lines of context before and after each match.'),
    limit: z.number().int().min(1).max(1000).default(100).describe('Maximum matching lines (content) or files.'),
  })
  .strict();

const SKIPPED_DIRECTORIES = ['.git', 'node_modules', '.agent', 'dist', 'build', 'coverage', '.venv', '__pycache__'];

/** The `grep -rn` command equivalent to a Grep call, for the Bash fallback. */
export function grepCommand(args: z.infer<typeof input>): string {
  const flags = ['-rn', '-I', args.fixed_strings ? '-F' : '-E'];
  if (!args.case_sensitive) flags.push('-i');
  if (args.output_mode === 'files_with_matches') flags.push('-l');
  if (args.output_mode === 'count') flags.push('-c');
  if (args.context > 0) flags.push(`-C${args.context}`);
  const include = args.glob ? [`--include=${shellQuote(args.glob.split('/').at(-1)!)}`] : [];
  const excludes = SKIPPED_DIRECTORIES.map((name) => `--exclude-dir=${name}`);
  const words = [
    'grep',
    ...flags,
    ...include,
    ...excludes,
    '-e',
    shellQuote(args.pattern),
    '--',
    shellQuote(args.path),
  ];
  return `${words.join(' ')} | head -n ${args.limit * (1 + 2 * args.context)}`;
}

/** Searches file contents. */
export const grep = defineTool({
  name: 'Grep',
  description: [
    'Search file contents with a regular expression; results are sorted by file and line.',
    'Respects .gitignore and skips hidden, binary and build/vendor files. Use output_mode "files_with_matches" to list files only.',
  ].join(' '),
  inputSchema: input,
  profiles: { 'read-only': 'pinned', 'code-edit': 'pinned', ops: 'pinned' },
  promptRole: 'explore',
  category: 'read',
  confirmation: 'none',
  isConcurrencySafe: () => true,
  pathParams: ['path'],
  aliases: ['grep', 'grep_search', 'search_code', 'search'],
  parameterAliases: [
    { from: 'regex', to: 'pattern' },
    { from: 'query', to: 'pattern' },
    { from: 'search', to: 'pattern' },
    { from: 'dir_path', to: 'path' },
    { from: 'directory', to: 'path' },
    { from: 'include', to: 'glob' },
    { from: 'include_pattern', to: 'glob' },
    { from: 'file_glob', to: 'glob' },
    { from: 'max_results', to: 'limit' },
    { from: 'max_count', to: 'limit' },
    { from: 'total_max_matches', to: 'limit' },
  ],
  activity: () => ({ startToCloseTimeoutMs: 30_000, maximumAttempts: 3 }),
  // When Grep itself is failing (retries exhausted, breaker open), plain `grep -rn` through Bash still answers.
  fallbacks: [
    {
      tool: 'Bash',
      mapInput: (args) => ({ command: grepCommand(args), timeout_ms: 60_000, description: 'Grep fallback' }),
    },
  ],
  summarize: (args) =>
    `Grep ${shorten(JSON.stringify(args.pattern), 60)}${args.path === '.' ? '' : ` in ${args.path}`}${args.glob ? ` (${args.glob})` : ''}`,
});
