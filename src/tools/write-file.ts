// Workflow-safe contract of WriteFile (docs/tools.md §11.2). The executor is activities/executors/write-file.ts.
import { z } from 'zod';
import { defineTool } from './define-tool.js';

const input = z
  .object({
    path: z.string().min(1).max(4096).describe('File path, relative to the workspace root.'),
    content: z
      .string()
      .max(5 * 1024 * 1024)
      .describe('The complete new file content, written byte for byte.'),
  })
  .strict();

/** Creates or overwrites a file. */
export const writeFile = defineTool({
  name: 'WriteFile',
  description: [
    'Create a new file, or overwrite an existing one with the complete new content.',
    'Overwriting requires a prior ReadFile of that file in this task; if it changed since, you get CONFLICT and must read it again.',
    'Prefer EditFile for small changes to existing files. Parent directories are created.',
  ].join(' '),
  inputSchema: input,
  profiles: { 'code-edit': 'pinned' },
  promptRole: 'change',
  category: 'write',
  confirmation: 'path',
  usesReadState: true,
  isConcurrencySafe: () => false,
  pathParams: ['path'],
  aliases: ['Write', 'write', 'write_file', 'create_file'],
  parameterAliases: [
    { from: 'file_path', to: 'path' },
    { from: 'filePath', to: 'path' },
    { from: 'text', to: 'content' },
    { from: 'contents', to: 'content' },
    { from: 'file_text', to: 'content' },
    { from: 'data', to: 'content' },
  ],
  activity: () => ({ startToCloseTimeoutMs: 30_000, maximumAttempts: 3 }),
  summarize: (args) => `WriteFile ${args.path} (${args.content.length} chars)`,
});
