// Workflow-safe contract of EditFile (docs/tools.md §11.3). The executor is activities/executors/edit-file.ts.
import { z } from 'zod';
import { defineTool } from './define-tool.js';

const edit = z
  .object({
    old_string: z.string().min(1).describe('Exact text to replace, including whitespace and indentation.'),
    new_string: z.string().describe('Replacement text.'),
    replace_all: z.boolean().default(false).describe('Replace every occurrence instead of requiring exactly one.'),
  })
  .strict();

const input = z
  .object({
    path: z.string().min(1).max(4096).describe('File path, relative to the workspace root.'),
    old_string: z.string().min(1).optional().describe('Exact text to replace (single-edit form).'),
    new_string: z.string().optional().describe('Replacement text (single-edit form).'),
    replace_all: z.boolean().default(false).describe('Single-edit form: replace every occurrence.'),
    edits: z
      .array(edit)
      .min(1)
      .max(50)
      .optional()
      .describe('Multi-edit form: applied all-or-nothing to the original content.'),
    dry_run: z.boolean().default(false).describe('Validate and preview the diff without writing.'),
  })
  .strict();

/** Exact-match string replacement in an existing file. */
export const editFile = defineTool({
  name: 'EditFile',
  description: [
    'Change an existing file (update, fix or rewrite part of it) by replacing exact text. Use either old_string/new_string, or edits (a list of them), not both.',
    'old_string must match the file exactly (copy it from ReadFile output without the line-number prefix) and be unique unless replace_all is true.',
    'Requires a prior ReadFile of the file in this task; all edits apply or none do.',
  ].join(' '),
  inputSchema: input,
  profiles: { 'code-edit': 'pinned' },
  promptRole: 'change',
  category: 'write',
  confirmation: 'path',
  usesReadState: true,
  isConcurrencySafe: () => false,
  pathParams: ['path'],
  aliases: ['Edit', 'edit', 'replace', 'str_replace', 'edit_file', 'MultiEdit'],
  parameterAliases: [
    { from: 'file_path', to: 'path' },
    { from: 'filePath', to: 'path' },
    { from: 'old_str', to: 'old_string' },
    { from: 'oldString', to: 'old_string' },
    { from: 'search', to: 'old_string' },
    { from: 'find', to: 'old_string' },
    { from: 'new_str', to: 'new_string' },
    { from: 'newString', to: 'new_string' },
    { from: 'replacement', to: 'new_string' },
    { from: 'replaceAll', to: 'replace_all' },
    { from: 'allow_multiple', to: 'replace_all' },
    { from: 'all', to: 'replace_all' },
  ],
  activity: () => ({ startToCloseTimeoutMs: 30_000, maximumAttempts: 3 }),
  summarize: (args) => `EditFile ${args.path} (${args.edits ? `${args.edits.length} edits` : '1 edit'})`,
});
