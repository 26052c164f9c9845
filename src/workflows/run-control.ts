// Workflow-safe: the operator's control messages (protocol/run-control) as Update and Signal handlers. Each delivery is
// checked (core/run/inbox), applied once per id, and — in a run its operator signed — applied only when the operator's
// CLI signed it; a refused one is recorded where the operator looks (progress, trace) and changes nothing.
import { ApplicationFailure, setHandler } from '@temporalio/workflow';
import type { SignalDefinition, UpdateDefinition } from '@temporalio/common';
import { workflowInfo } from '@temporalio/workflow';
import type { ControlKind, ControlReceipt, ControlRequest } from '../protocol/run-control.js';
import { CONTROL_NOT_SIGNED } from '../protocol/run-authorization.js';
import type { AgentState } from '../core/state.js';
import { addEvent, addProgress } from '../core/state.js';
import { controlRefusal, isDuplicateControl, signatureAgeRefusal } from '../core/run/inbox.js';
import { verifyControl } from './activities.js';

/** What applying a control message reports beyond its id, kind and the run's status. */
export type ControlEffect = Omit<ControlReceipt, 'id' | 'kind' | 'status'>;

/** The handlers of one kind: its Update, its Signal, and what taking a message does to the run. */
export interface ControlHandlers {
  kind: ControlKind;
  update: UpdateDefinition<ControlReceipt, [ControlRequest]>;
  signal: SignalDefinition<[ControlRequest]>;
  description: string;
  /** Why this kind cannot be taken now, beyond the checks every kind has (a resume of a run not paused). */
  refusal?(request: ControlRequest): string | undefined;
  /** Applies a checked, authorized, new message (the id is remembered by it). */
  apply(request: ControlRequest): ControlEffect;
}

/** The control messages of one workflow run. */
export class ControlDesk {
  private readonly receipts = new Map<string, ControlReceipt>();

  /** `signed`: the run's operator signed its start, so it takes only signed control messages. */
  constructor(
    private readonly state: AgentState,
    private readonly signed: boolean,
    private readonly publish: () => void,
  ) {}

  /** Registers the Update and the Signal of one kind; call at the start of the workflow. */
  install(handlers: ControlHandlers): void {
    const { update, signal, description } = handlers;
    setHandler(update, (request) => this.take(handlers, request, 'Update'), {
      description,
      validator: (request: ControlRequest) => {
        const refusal = this.refusal(handlers, request);
        if (refusal !== undefined) throw new Error(`Refused: ${refusal}.`);
      },
    });
    setHandler(
      signal,
      // A Signal cannot be answered: a refused one changes nothing (a signed run records why).
      (request) => {
        if (this.refusal(handlers, request) !== undefined) return;
        return this.take(handlers, request, 'Signal').then(
          () => undefined,
          () => undefined,
        );
      },
      { description: `${description} As a Signal, for senders that cannot wait for an answer.` },
    );
  }

  private async take(handlers: ControlHandlers, request: ControlRequest, channel: 'Update' | 'Signal') {
    const { kind } = handlers;
    const earlier = this.duplicate(kind, request.id);
    if (earlier) return earlier;
    if (this.signed) {
      const refusal = await this.authorize(kind, request);
      if (refusal !== undefined) {
        this.refused(kind, request, channel, refusal);
        throw ApplicationFailure.create({
          type: CONTROL_NOT_SIGNED,
          nonRetryable: true,
          message: `Refused: ${refusal}. This run takes control messages only from its operator's durable-agent CLI.`,
        });
      }
      // The run may have ended, or taken the same id, while the signature was checked.
      const again = this.duplicate(kind, request.id);
      if (again) return again;
      const late = this.refusal(handlers, request);
      if (late !== undefined)
        throw ApplicationFailure.create({ type: 'ControlRefused', nonRetryable: true, message: `Refused: ${late}.` });
    }
    const effect = handlers.apply(request);
    const receipt: ControlReceipt = { id: request.id, kind, status: this.state.status, ...effect };
    this.receipts.set(request.id, receipt);
    this.publish();
    return receipt;
  }

  /** Why `request` is refused now; a duplicate passes the kind's own check, to be answered with its receipt. */
  private refusal(handlers: ControlHandlers, request: ControlRequest): string | undefined {
    const common = controlRefusal(this.state, handlers.kind, request);
    if (common !== undefined || !handlers.refusal || isDuplicateControl(this.state, request.id)) return common;
    return handlers.refusal(request);
  }

  /** The receipt of an id already taken (in this run or, without its receipt, an earlier run of the task). */
  private duplicate(kind: ControlKind, id: string): ControlReceipt | undefined {
    if (!isDuplicateControl(this.state, id)) return undefined;
    const earlier = this.receipts.get(id);
    return { ...(earlier ?? { id, kind }), status: this.state.status, duplicate: true };
  }

  private async authorize(kind: ControlKind, request: ControlRequest): Promise<string | undefined> {
    const signature = request.signature;
    if (!signature || typeof signature.issuedAt !== 'number') return 'it is not signed';
    const stale = signatureAgeRefusal(signature.issuedAt, Date.now());
    if (stale !== undefined) return stale;
    try {
      const verdict = await verifyControl({ workflowId: workflowInfo().workflowId, kind, request });
      return verdict.accepted ? undefined : verdict.reason;
    } catch (error) {
      return `the worker could not verify it (${(error as Error).message})`;
    }
  }

  private refused(kind: ControlKind, request: ControlRequest, channel: string, reason: string): void {
    const claimed = request.sent_by ? `, claiming to be ${request.sent_by}` : '';
    const text = `refused ${request.signature ? 'a badly signed' : 'an unsigned'} ${kind} ${request.id} (${channel}${claimed}): ${reason}`;
    addProgress(this.state, { kind: 'message', step: this.state.step, text, status: 'refused' });
    addEvent(this.state, 'control_refused', Date.now(), { text, kind, id: request.id, channel, reason });
    this.publish();
  }
}
