// Workflow-safe: transcript compaction. When the transcript nears the model's context budget, the older turns are
// replaced by a summary written by the model itself; the system prompt, the task and the recent turns stay verbatim.
import type { ChatMessage } from '../protocol/model.js';
import { approximateTokens } from './pricing.js';

/** The summariser's instructions (the system message of a compaction request). */
export const SUMMARISER_PROMPT =
  'You compress the working history of a software agent so it can continue its task with less context. ' +
  'Write a concise summary that keeps: the task; what was found (files, facts, errors); every decision and change made ' +
  '(with file paths); commands run and their outcomes; and the open threads and next steps. Do not invent anything.';

/** Recent assistant turns (with their tool results) kept word for word. */
export const KEEP_RECENT_TURNS = 3;

/** Longest part of one message shown to the summariser; tool outputs beyond it are cut (the spill files keep them). */
const MAX_SUMMARISED_MESSAGE_CHARS = 2_000;

/** Marks the summary message, so a later compaction folds the previous summary in. */
export const SUMMARY_PREFIX = 'Summary of the earlier part of this task (older turns were compacted):';

/** What to replace: messages [start, end) are summarised. */
export interface CompactionPlan {
  start: number;
  end: number;
}

/** Rough token size of a transcript (characters / 4, as the budget estimate uses). */
export function transcriptTokens(messages: readonly ChatMessage[]): number {
  return approximateTokens(messages);
}

/**
 * Chooses the older turns to summarise: everything after the system prompt and the task, up to the start of the
 * KEEP_RECENT_TURNS-th last assistant message. A cut never separates an assistant message from its tool results.
 * Undefined when there is nothing worth compacting.
 */
export function planCompaction(
  messages: readonly ChatMessage[],
  keepRecentTurns = KEEP_RECENT_TURNS,
): CompactionPlan | undefined {
  const start = 2;
  const assistants = messages.flatMap((message, index) =>
    message.role === 'assistant' && index >= start ? [index] : [],
  );
  if (assistants.length <= keepRecentTurns) return undefined;
  const end = assistants[assistants.length - keepRecentTurns]!;
  return end - start >= 2 ? { start, end } : undefined;
}

/** The request for the summarising model call: no tools, the older turns rendered as text. */
export function summaryRequest(messages: readonly ChatMessage[], plan: CompactionPlan): ChatMessage[] {
  const task = messages[1]?.content ?? '';
  const rendered = messages.slice(plan.start, plan.end).map(renderMessage).join('\n\n');
  return [
    { role: 'system', content: SUMMARISER_PROMPT },
    { role: 'user', content: `The task:\n${String(task)}\n\nThe history to summarise:\n\n${rendered}` },
  ];
}

/** The compacted transcript: system prompt, task, summary, then the recent turns unchanged. */
export function applyCompaction(
  messages: readonly ChatMessage[],
  plan: CompactionPlan,
  summary: string,
): ChatMessage[] {
  return [
    ...messages.slice(0, plan.start),
    { role: 'user', content: `${SUMMARY_PREFIX}\n${summary.trim()}` },
    ...messages.slice(plan.end),
  ];
}

function renderMessage(message: ChatMessage): string {
  const cut = (text: string): string =>
    text.length > MAX_SUMMARISED_MESSAGE_CHARS
      ? `${text.slice(0, MAX_SUMMARISED_MESSAGE_CHARS)}… (+${text.length - MAX_SUMMARISED_MESSAGE_CHARS} chars)`
      : text;
  switch (message.role) {
    case 'assistant': {
      const calls = (message.tool_calls ?? []).map(
        (call) => `  → ${call.function.name}(${cut(call.function.arguments)}) [${call.id}]`,
      );
      return [`assistant: ${cut(message.content ?? '')}`, ...calls].join('\n');
    }
    case 'tool':
      return `tool result [${message.tool_call_id}]: ${cut(message.content)}`;
    default:
      return `${message.role}: ${cut(message.content)}`;
  }
}
