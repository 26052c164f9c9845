// Workflow-safe: a sub-agent's ending as its Task call's result. A child's failure is its parent's tool error (the
// model reads why and goes on), never the parent's failure.
import type { Envelope, EnvelopeContext } from '../../protocol/envelope.js';
import { errorEnvelope, okEnvelope } from '../../protocol/envelope.js';
import type { AgentResult, RunStatus } from '../../protocol/run-report.js';
import { formatUsd } from '../pricing.js';
import { resultUsage } from './children.js';

/** How a child ended, as its parent saw it. */
export type ChildEnding =
  | { kind: 'completed'; result: AgentResult }
  | { kind: 'failed'; message: string; result?: AgentResult; status?: RunStatus }
  | { kind: 'timed_out'; timeoutMs: number };

/** The Task call's envelope for the child `workflowId`'s ending. */
export function childEnvelope(workflowId: string, ending: ChildEnding, context: EnvelopeContext): Envelope {
  if (ending.kind === 'timed_out')
    return errorEnvelope({
      code: 'TIMEOUT',
      message: `The sub-agent ${workflowId} ran out of its time (${Math.round(ending.timeoutMs / 1000)} s) and was cancelled. Give it a smaller sub-task, or do the work yourself.`,
      details: { workflow_id: workflowId },
      context,
    });
  if (ending.kind === 'failed')
    return errorEnvelope({
      code: 'EXECUTION_ERROR',
      message: `The sub-agent ${workflowId} failed: ${ending.message}`,
      details: { workflow_id: workflowId, ...(ending.result ? facts(ending.result) : {}) },
      context,
    });
  const { result } = ending;
  const answer = result.answer ?? (result.result !== undefined ? JSON.stringify(result.result) : '');
  return okEnvelope({
    data: { workflow_id: workflowId, ...facts(result) },
    text: answer === '' ? `The sub-agent ${workflowId} finished without an answer.` : answer,
    context,
  });
}

/** What the model learns of the child besides its answer: its size, cost, and where its whole transcript is. */
function facts(result: AgentResult): Record<string, unknown> {
  const usage = resultUsage(result);
  return {
    steps: result.steps,
    tool_calls: result.toolCalls,
    cost_usd: usage.costUsd,
    cost: formatUsd(usage.costUsd),
    tokens: usage.totalTokens,
    ...(result.transcript ? { transcript_key: result.transcript } : {}),
  };
}
