// Workflow-safe: the workflow interceptors that carry a run's proof (the operator's signature over its start) to every
// activity and local activity the run schedules, and across continue-as-new. Listed in the worker's
// `interceptors.workflowModules`; a run without a proof schedules its activities unchanged.
import { defaultPayloadConverter } from '@temporalio/common';
import type {
  ActivityInput,
  ContinueAsNewInput,
  LocalActivityInput,
  Next,
  WorkflowExecuteInput,
  WorkflowInboundCallsInterceptor,
  WorkflowInterceptorsFactory,
  WorkflowOutboundCallsInterceptor,
} from '@temporalio/workflow';
import { workflowInfo } from '@temporalio/workflow';
import type { RunAuthorization, RunChain, RunProofHeader } from '../protocol/run-authorization.js';
import { RUN_PROOF_HEADER, inputDigest } from '../protocol/run-authorization.js';

/**
 * The chain a run proves: the first run digests its own input; a continued run — one the server marks as continued
 * within the same chain — takes the first run's facts its predecessor handed on, since its input now holds `resume`.
 * A client cannot start a continuation, so a `chain` in a fresh start's input counts for nothing.
 */
function chainOf(input: object, authorization: RunAuthorization): RunChain {
  const info = workflowInfo();
  const carried = authorization.chain;
  if (info.continuedFromExecutionRunId && carried?.firstRunId === info.firstExecutionRunId) return carried;
  return { digest: inputDigest(input), firstRunId: info.firstExecutionRunId, startedAt: info.startTime.getTime() };
}

/** The proof of one run, once its input is known; the factory below makes one per workflow run. */
interface ProofHolder {
  proof?: RunProofHeader;
}

class ProofInbound implements WorkflowInboundCallsInterceptor {
  constructor(private readonly holder: ProofHolder) {}

  async execute(input: WorkflowExecuteInput, next: Next<WorkflowInboundCallsInterceptor, 'execute'>): Promise<unknown> {
    const agentInput = input.args[0] as { authorization?: RunAuthorization } | undefined;
    const authorization = agentInput?.authorization;
    if (authorization && typeof authorization === 'object') {
      this.holder.proof = {
        workflowId: workflowInfo().workflowId,
        issuedAt: authorization.issuedAt,
        mac: authorization.mac,
        ...chainOf(agentInput, authorization),
      };
    }
    return await next(input);
  }
}

class ProofOutbound implements WorkflowOutboundCallsInterceptor {
  constructor(private readonly holder: ProofHolder) {}

  async scheduleActivity(input: ActivityInput, next: Next<WorkflowOutboundCallsInterceptor, 'scheduleActivity'>) {
    return await next(this.withProof(input));
  }

  async scheduleLocalActivity(
    input: LocalActivityInput,
    next: Next<WorkflowOutboundCallsInterceptor, 'scheduleLocalActivity'>,
  ) {
    return await next(this.withProof(input));
  }

  async continueAsNew(input: ContinueAsNewInput, next: Next<WorkflowOutboundCallsInterceptor, 'continueAsNew'>) {
    const proof = this.holder.proof;
    if (!proof) return await next(input);
    const [first, ...rest] = input.args;
    const { workflowId: _id, issuedAt, mac, ...chain } = proof;
    const authorization: RunAuthorization = { issuedAt, mac, chain };
    return await next({ ...input, args: [{ ...(first as object), authorization }, ...rest] });
  }

  private withProof<T extends { headers: ActivityInput['headers'] }>(input: T): T {
    const proof = this.holder.proof;
    if (!proof) return input;
    return { ...input, headers: { ...input.headers, [RUN_PROOF_HEADER]: defaultPayloadConverter.toPayload(proof) } };
  }
}

export const interceptors: WorkflowInterceptorsFactory = () => {
  const holder: ProofHolder = {};
  return { inbound: [new ProofInbound(holder)], outbound: [new ProofOutbound(holder)] };
};
