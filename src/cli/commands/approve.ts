// Node: `approve` and `deny`: a decision for a tool call waiting for one, signed for the embedded worker.
import type { WorkflowHandle } from '@temporalio/client';
import {
  WorkflowNotFoundError,
  WorkflowUpdateFailedError,
  WorkflowUpdateRPCTimeoutOrCancelledError,
} from '@temporalio/client';
import type { Config } from '../../config.js';
import type { agentWorkflow } from '../../workflows/agent.js';
import type { ApprovalDecision, ApprovalOutcome } from '../../protocol/approval.js';
import { approveToolCall, stateQuery } from '../../protocol/run-messages.js';
import { operatorSigner } from '../operator-signing.js';
import { connect } from '../connect.js';
import { EXIT, UsageError } from '../exit-codes.js';
import { parseCommandLine } from '../option-table.js';
import { approveOptions, denyOptions } from '../options/runs.js';
import { operatorName } from '../operator.js';
import { visibleLines, visibleText } from '../../core/terminal-text.js';
import { color, log, out, outJson } from '../output.js';
import { stdoutColor } from '../stdout-color.js';

/** How long the CLI waits for a worker to accept or reject the decision. */
const DECISION_TIMEOUT_MS = 60_000;

/** `approve ID CALL_ID [--remember] [--reason R] [--json]`. */
export async function approveCommand(argv: string[], config: Config): Promise<number> {
  const { values, positionals } = parseCommandLine(approveOptions, argv);
  const [workflowId, callId] = positionals;
  if (!workflowId || !callId || positionals.length > 2)
    throw new UsageError('approve needs a run id and a call id: durable-agent approve ID CALL_ID');
  return decide(
    config,
    workflowId,
    {
      tool_call_id: callId,
      decision: 'approve',
      ...(values.remember ? { remember: true } : {}),
      ...(values.reason ? { reason: values.reason } : {}),
    },
    values.json,
  );
}

/** `deny ID CALL_ID [--reason R] [--json]`. */
export async function denyCommand(argv: string[], config: Config): Promise<number> {
  const { values, positionals } = parseCommandLine(denyOptions, argv);
  const [workflowId, callId] = positionals;
  if (!workflowId || !callId || positionals.length > 2)
    throw new UsageError('deny needs a run id and a call id: durable-agent deny ID CALL_ID');
  return decide(
    config,
    workflowId,
    { tool_call_id: callId, decision: 'reject', ...(values.reason ? { reason: values.reason } : {}) },
    values.json,
  );
}

/**
 * Where a decision goes: a sub-agent's approvals are decided on its root, by the id the root lists them under (the
 * sub-agent's path, a slash, its call id), so `approve ROOT/task-1-0 CALL` is sent to ROOT as `task-1-0/CALL`.
 */
async function decidedAt(
  handle: WorkflowHandle<typeof agentWorkflow>,
  callId: string,
): Promise<{ workflowId: string; callId: string } | undefined> {
  const parent = await handle
    .query(stateQuery)
    .then((view) => view.parent)
    .catch(() => undefined);
  if (!parent) return undefined;
  return {
    workflowId: parent.rootWorkflowId,
    callId: callId.startsWith(`${parent.path}/`) ? callId : `${parent.path}/${callId}`,
  };
}

async function decide(config: Config, asked: string, askedDecision: ApprovalDecision, json: boolean): Promise<number> {
  const verb = askedDecision.decision === 'approve' ? 'approve' : 'deny';
  // A worker has to run the workflow's update validator and handler; the embedded one is started if needed.
  const connected = await connect(config, { needWorker: true });
  try {
    let workflowId = asked;
    let decision = askedDecision;
    const root = asked.includes('/')
      ? await decidedAt(connected.client.workflow.getHandle<typeof agentWorkflow>(asked), decision.tool_call_id)
      : undefined;
    if (root) {
      workflowId = root.workflowId;
      decision = { ...decision, tool_call_id: root.callId };
      log(
        color.dim(
          `${visibleText(asked)} is a sub-agent: deciding ${visibleText(root.callId)} on its root ${visibleText(workflowId)}`,
        ),
      );
    }
    const handle = connected.client.workflow.getHandle<typeof agentWorkflow>(workflowId);
    let outcome: ApprovalOutcome;
    connected.keepWorkerAlive();
    const signer = operatorSigner(connected);
    try {
      const deadline = Date.now() + DECISION_TIMEOUT_MS;
      outcome = await connected.client.connection.withDeadline(deadline, async () => {
        const sent: ApprovalDecision = { ...decision, decided_by: operatorName() };
        // Signed for the pending call by that id (what it does, not only its id); a call not pending is sent as it is
        // and refused by the run with its own reason.
        const pending = signer
          ? (await handle.query(stateQuery)).pendingApprovals.find((entry) => entry.callId === decision.tool_call_id)
          : undefined;
        const signed = signer && pending ? signer.decision(workflowId, pending, sent) : sent;
        return await handle.executeUpdate(approveToolCall, { args: [signed] });
      });
    } catch (error) {
      // The refusal is the server's or the workflow's text.
      log(
        color.red(
          `error: ${verb} ${visibleText(decision.tool_call_id)} on ${visibleText(workflowId)} was not accepted: ${visibleLines(refusal(error))}`,
        ),
      );
      return EXIT.failed;
    }
    if (json) outJson({ workflowId, ...outcome });
    else {
      const done = outcome.decision === 'approve' ? stdoutColor.green('approved') : stdoutColor.yellow('denied');
      const remembered = outcome.rememberedKey
        ? ` (remembered "${visibleText(outcome.rememberedKey)}" for the rest of the task)`
        : '';
      out(`${done} ${visibleText(outcome.tool_call_id)} on ${visibleText(workflowId)}${remembered}\n`);
    }
    return EXIT.finished;
  } finally {
    await connected.close();
  }
}

/** The server's or the workflow's reason for refusing the decision, phrased for an operator. */
function refusal(error: unknown): string {
  if (error instanceof WorkflowUpdateFailedError) {
    const reason = error.cause?.message ?? error.message;
    // Workflow code from before approvals existed has no handler for the update.
    if (/no registered handler for update/i.test(reason))
      return `the run does not take approvals (its workflow code has no "${approveToolCall.name}" update handler): ${reason}`;
    return reason;
  }
  if (error instanceof WorkflowNotFoundError) {
    return /already completed/i.test(error.message) ? 'the run has already finished' : `no such run (${error.message})`;
  }
  if (error instanceof WorkflowUpdateRPCTimeoutOrCancelledError)
    return `no worker answered within ${DECISION_TIMEOUT_MS / 1000}s; is a worker running for this run's task queue?`;
  return error instanceof Error ? error.message : String(error);
}
