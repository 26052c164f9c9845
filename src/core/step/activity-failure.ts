// Workflow-safe: a tool activity that failed for good (its retries spent, its worker gone) becomes an envelope the
// model can act on; the loop goes on. Only cancellation is not turned into an envelope: the shell rethrows it.
import { ActivityFailure, TimeoutFailure } from '@temporalio/common';
import type { Envelope, EnvelopeContext } from '../../protocol/envelope.js';
import { errorEnvelope } from '../../protocol/envelope.js';
import type { ToolContract } from '../../tools/define-tool.js';

/** The envelope for a call whose activity failed with `error`. */
export function activityFailureEnvelope(
  tool: Pick<ToolContract, 'name' | 'category' | 'origin'>,
  timeoutMs: number,
  error: unknown,
  context: EnvelopeContext,
): Envelope {
  const cause = error instanceof ActivityFailure ? error.cause : error;
  const mcp = tool.origin === 'mcp';
  if (cause instanceof TimeoutFailure && cause.timeoutType === 'START_TO_CLOSE') {
    return errorEnvelope({
      code: mcp ? 'MCP_TIMEOUT' : 'TIMEOUT',
      message: `Tool '${tool.name}' did not finish within ${timeoutMs} ms.`,
      details: { timeout_type: 'start_to_close' },
      context,
    });
  }
  if (cause instanceof TimeoutFailure) {
    // A missed heartbeat (or a task nobody picked up) means the worker running the tool went away mid-call; a command,
    // or an MCP call that may change something, may have done part of its work by then.
    return errorEnvelope({
      code: 'EXECUTION_ERROR',
      message:
        tool.category !== 'command'
          ? `Tool '${tool.name}' failed: worker lost during execution.`
          : mcp
            ? `worker lost during execution; the MCP server may have run '${tool.name}' in part or in full`
            : 'worker lost during execution; the command may have partially run',
      details: { reason: 'worker_lost', timeout_type: cause.timeoutType },
      context,
    });
  }
  const message = cause instanceof Error ? cause.message : String(cause);
  return errorEnvelope({ code: 'INTERNAL_ERROR', message: `Tool '${tool.name}' failed: ${message}`, context });
}
