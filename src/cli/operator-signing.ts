// Node: the CLI's signatures with the embedded server's operator key: the proof of each run it starts and of each
// decision it sends, without which the embedded worker does nothing. A cluster's CLI signs nothing: Temporal
// authorizes its clients.
import { loadOrCreateOperatorKey } from '../authorization/operator-key.js';
import { signControl, signDecision, signRun } from '../authorization/signing.js';
import type { ControlKind, ControlRequest } from '../protocol/run-control.js';
import type { ApprovalDecision, PendingApproval } from '../protocol/approval.js';
import type { AgentInput } from '../core/state.js';
import type { Connected } from './connect.js';
import { stateDir } from '../host/state-dir.js';

/** Signs for the operator of this state directory. */
export interface OperatorSigner {
  /** `input` with its proof for `workflowId`, signed now (just before the start). */
  run(workflowId: string, input: AgentInput): AgentInput;
  /** `decision` signed for the pending call `approval` of `workflowId`. */
  decision(workflowId: string, approval: PendingApproval, decision: ApprovalDecision): ApprovalDecision;
  /** A control message (`say`, `interrupt`, `pause`, `resume`, `continue`) signed for `workflowId`. */
  control(workflowId: string, kind: ControlKind, request: ControlRequest): ControlRequest;
}

/** The signer of an embedded connection (the key is created on first use); none for a cluster. */
export function operatorSigner(connected: Pick<Connected, 'embedded'>): OperatorSigner | undefined {
  if (!connected.embedded) return undefined;
  const key = loadOrCreateOperatorKey(stateDir());
  return {
    run: (workflowId, input) => {
      const { authorization: _earlier, ...unsigned } = input;
      return { ...unsigned, authorization: signRun(key, workflowId, unsigned) };
    },
    decision: (workflowId, approval, decision) =>
      signDecision(key, { workflowId, callId: approval.callId, identity: approval.identity }, decision),
    control: (workflowId, kind, request) => signControl(key, workflowId, kind, request),
  };
}
