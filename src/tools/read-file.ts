// Workflow-safe contract of ReadFile (docs/tools.md §11.1). The executor is activities/executors/read-file.ts.
import { z } from 'zod';
import { defineTool } from './define-tool.js';

const input = z
  .object({
    path: z.string().min(1).max(4096).describe('File path, relative to the workspace root (or absolute inside it).'),
    offset: z.number().int().min(1).default(1).describe('1-based line number to start reading from.'),
    limit: z.number().int().min(1).max(2000).default(2000).describe('Maximum number of lines to return (1-2000).'),
  })
  .strict();

/** Reads a text file with line numbers. */
export const readFile = defineTool({
  name: 'ReadFile',
  description: [
    'Read a UTF-8 text file inside the workspace. Returns numbered lines ("   12 | text").',
    'Reads at most 2000 lines or 40 KB per call; when the result says truncated, call again with offset=next_offset.',
    'You must ReadFile a file before EditFile or WriteFile can change it. Directories are rejected: use Glob.',
  ].join(' '),
  inputSchema: input,
  profiles: { 'read-only': 'pinned', 'code-edit': 'pinned', ops: 'pinned' },
  promptRole: 'explore',
  category: 'read',
  confirmation: 'none',
  usesReadState: true,
  isConcurrencySafe: () => true,
  pathParams: ['path'],
  aliases: ['Read', 'read', 'read_file', 'readfile', 'cat_file'],
  parameterAliases: [
    { from: 'file_path', to: 'path' },
    { from: 'filePath', to: 'path' },
    { from: 'file', to: 'path' },
    { from: 'filename', to: 'path' },
    { from: 'start_line', to: 'offset' },
    { from: 'startLine', to: 'offset' },
  ],
  activity: () => ({ startToCloseTimeoutMs: 30_000, maximumAttempts: 3 }),
  summarize: (args) => `ReadFile ${args.path}:${args.offset}-${args.offset + args.limit - 1}`,
});
