// Workflow-safe contract of Task: a sub-agent. The call runs no activity: the workflow starts a child workflow of the
// same agent on the same workspace (workflows/sub-agent.ts), with a fresh transcript, and answers with its answer.
import { z } from 'zod';
import { PROFILE_NAMES } from '../protocol/profile-names.js';
import { defineTool, shorten } from './define-tool.js';

/** The profile a Task call gets when it names none: it only reads, so several run side by side. */
export const DEFAULT_TASK_PROFILE = 'read-only';

const input = z
  .object({
    description: z.string().min(1).max(200).describe('A few words naming the sub-task, shown to operators.'),
    prompt: z
      .string()
      .min(1)
      .max(100_000)
      .describe(
        'The whole sub-task for the sub-agent: it starts with a fresh context and sees nothing of yours but this, so say what to do, where, and what to answer with.',
      ),
    profile: z
      .enum(PROFILE_NAMES)
      .default(DEFAULT_TASK_PROFILE)
      .describe(
        'The sub-agent\'s tools: "read-only" (explore and answer; several run in parallel), "code-edit" (change files), "ops" (commands).',
      ),
    budget_share: z
      .number()
      .gt(0)
      .max(1)
      .default(0.25)
      .describe('The share of your remaining cost budget the sub-agent may spend (0-1; when you have a budget).'),
    max_steps: z.number().int().min(1).max(500).optional().describe('At most this many steps for the sub-agent.'),
  })
  .strict();

/** Hands a sub-task to a sub-agent and answers with what it found or did. */
export const task = defineTool({
  name: 'Task',
  description: [
    'Hand a self-contained sub-task to a sub-agent with a fresh context: it works with its own tools and steps, then',
    "answers; its answer (and the key of its full transcript) is this call's result. Use it for work that would fill",
    'your context (exploring many files, a review per package). Several read-only Task calls in one turn run in',
    'parallel. The sub-agent works on the same workspace; its own calls ask for approval as yours do.',
  ].join(' '),
  inputSchema: input,
  profiles: { 'read-only': 'offered', 'code-edit': 'offered', ops: 'offered' },
  category: 'read',
  confirmation: 'none',
  runsAsChild: true,
  isConcurrencySafe: (args) => args.profile === 'read-only',
  pathParams: [],
  aliases: ['task', 'Agent', 'sub_agent', 'subagent', 'delegate'],
  parameterAliases: [
    { from: 'task', to: 'prompt' },
    { from: 'instructions', to: 'prompt' },
    { from: 'subagent_type', to: 'profile' },
  ],
  // Never scheduled as an activity: the child's own time limit bounds the call (core/sub-agents).
  activity: () => ({ startToCloseTimeoutMs: 0, maximumAttempts: 1 }),
  summarize: (args) => `Task (${args.profile}) ${shorten(args.description, 60)}`,
});
