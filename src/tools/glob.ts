// Workflow-safe contract of Glob (docs/tools.md §11.4). The executor is activities/executors/glob.ts.
import { z } from 'zod';
import { defineTool } from './define-tool.js';

const input = z
  .object({
    pattern: z
      .string()
      .min(1)
      .max(1000)
      .describe('Glob relative to path, e.g. "src/**/*.ts". * and ? never cross "/".'),
    path: z.string().min(1).default('.').describe('Directory to search from, relative to the workspace root.'),
    limit: z.number().int().min(1).max(1000).default(100).describe('Maximum number of paths to return.'),
    include_hidden: z.boolean().default(false).describe('Also match names starting with ".".'),
    include_ignored: z
      .boolean()
      .default(false)
      .describe('Also match files in .gitignore and build/vendor directories.'),
  })
  .strict();

/** Finds files by name pattern. */
export const glob = defineTool({
  name: 'Glob',
  description: [
    'Find files by glob pattern (supports **, *, ?, [abc], {a,b}); returns workspace-relative paths sorted by path.',
    'Hidden files, .gitignore entries and directories such as node_modules are skipped unless asked for.',
  ].join(' '),
  inputSchema: input,
  profiles: { 'read-only': 'pinned', 'code-edit': 'pinned', ops: 'offered' },
  promptRole: 'explore',
  category: 'read',
  confirmation: 'none',
  isConcurrencySafe: () => true,
  pathParams: ['path'],
  aliases: ['glob', 'find_files'],
  parameterAliases: [
    { from: 'dir_path', to: 'path' },
    { from: 'dir', to: 'path' },
    { from: 'directory', to: 'path' },
    { from: 'cwd', to: 'path' },
    { from: 'glob', to: 'pattern' },
    { from: 'glob_pattern', to: 'pattern' },
  ],
  activity: () => ({ startToCloseTimeoutMs: 30_000, maximumAttempts: 3 }),
  summarize: (args) => `Glob ${args.pattern}${args.path === '.' ? '' : ` in ${args.path}`}`,
});
