// The docs/tools.md §1 envelope as a zod schema, for tests that judge tool messages they did not build: status, data,
// text, stats, context and error, with the rules that tie them together (error iff status error, error.message equals
// text).
import { z } from 'zod';
import type { ChatMessage } from '../../src/protocol/model.js';

const ERROR_CODES = [
  'NOT_FOUND',
  'ACCESS_DENIED',
  'PERMISSION_DENIED',
  'INVALID_PARAM',
  'TIMEOUT',
  'INTERNAL_ERROR',
  'EXECUTION_ERROR',
  'IS_DIRECTORY',
  'BINARY_FILE',
  'CONFLICT',
  'CIRCUIT_OPEN',
  'CANCELLED',
  'MCP_PARAM_ERROR',
  'MCP_PARSE_ERROR',
  'MCP_EXECUTION_ERROR',
  'MCP_NETWORK_ERROR',
  'MCP_TIMEOUT',
  'MCP_NOT_FOUND',
] as const;

// zod's record refuses an object with an own `constructor` key, and models send those: any non-array object will do.
const jsonObject = z.custom<Record<string, unknown>>(
  (value) => typeof value === 'object' && value !== null && !Array.isArray(value),
  'expected a JSON object',
);

const repairSchema = z.object({
  stage: z.enum(['name', 'parse', 'coerce', 'alias', 'drop', 'input']),
  kind: z.string().min(1),
  param: z.string().optional(),
  from: z.string().optional(),
  to: z.string().optional(),
});

/** A tool result envelope (docs/tools.md §1). */
export const envelopeSchema = z
  .object({
    status: z.enum(['success', 'partial', 'error']),
    data: jsonObject,
    text: z.string(),
    stats: z.looseObject({ time_ms: z.number().nonnegative() }),
    context: z.object({
      tool_call_id: z.string().min(1),
      cwd: z.string(),
      params_input: jsonObject,
      path_resolved: z.string().optional(),
      repairs: z.array(repairSchema).min(1).optional(),
      ignored_params: z.array(z.string()).optional(),
    }),
    error: z
      .object({
        code: z.enum(ERROR_CODES),
        message: z.string(),
        details: jsonObject.optional(),
      })
      .optional(),
  })
  .superRefine((envelope, context) => {
    if ((envelope.status === 'error') !== (envelope.error !== undefined))
      context.addIssue({ code: 'custom', message: 'error is present iff status is "error"' });
    if (envelope.error && envelope.error.message !== envelope.text)
      context.addIssue({ code: 'custom', message: 'error.message must equal text' });
    if (envelope.status !== 'error' && envelope.stats.time_ms < 1)
      context.addIssue({ code: 'custom', message: 'time_ms must be at least 1 unless the status is "error"' });
  });

/** A parsed, validated envelope. */
export type CheckedEnvelope = z.infer<typeof envelopeSchema>;

/** What is wrong with how one assistant message's tool calls are answered, or an empty list. */
export function answerProblems(assistant: ChatMessage, answers: readonly ChatMessage[]): string[] {
  if (assistant.role !== 'assistant') return [`expected an assistant message, got ${assistant.role}`];
  const calls = assistant.tool_calls ?? [];
  const problems: string[] = [];
  const ids = calls.map((call) => call.id);
  if (new Set(ids).size !== ids.length) problems.push(`tool call ids are not unique: ${JSON.stringify(ids)}`);
  if (answers.length !== calls.length) problems.push(`${calls.length} calls but ${answers.length} tool messages`);
  calls.forEach((call, index) => {
    const problem = answerProblem(call.id, answers[index]);
    if (problem) problems.push(`call ${index} (${call.id}): ${problem}`);
  });
  return problems;
}

function answerProblem(callId: string, answer: ChatMessage | undefined): string | undefined {
  if (answer?.role !== 'tool') return 'no tool message answers it';
  if (answer.tool_call_id !== callId) return `its tool message answers ${answer.tool_call_id}`;
  let parsed: unknown;
  try {
    parsed = JSON.parse(answer.content);
  } catch {
    return 'the tool message is not JSON';
  }
  const checked = envelopeSchema.safeParse(parsed);
  if (!checked.success) return z.prettifyError(checked.error);
  if (checked.data.context.tool_call_id !== callId) return `the envelope names ${checked.data.context.tool_call_id}`;
  return undefined;
}
