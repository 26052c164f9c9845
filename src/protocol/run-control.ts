// Workflow-safe: the operator's control messages to a running run — steering messages, interrupts, pause and resume —
// defined once for the workflow and the CLI. Each is an Update (the CLI: validated, acknowledged, recorded in history)
// and a Signal of the same shape (the Web UI and `temporal workflow signal`, which cannot wait for an answer).
import { defineSignal, defineUpdate } from '@temporalio/workflow';
import type { RunStatus } from './run-report.js';

/** What an operator can tell a run. */
export type ControlKind = 'message' | 'interrupt' | 'pause' | 'resume';

/** The operator's signature over one control message (core/authorization's `controlMessage`). */
export interface ControlSignature {
  /** Epoch ms when the CLI signed it. */
  issuedAt: number;
  /** Hex HMAC-SHA256 of `controlMessage`. */
  mac: string;
}

/**
 * One control message. `id` is chosen by the sender and names the message for the whole task: the run applies a
 * message once, however often it is delivered (a retried Update, the same id sent as a Signal, a continued run).
 */
export interface ControlRequest {
  id: string;
  /** The message for the model (`message`; optional with `interrupt`), or the reason (`pause`). */
  text?: string;
  /** Who sent it, as shown to operators. */
  sent_by?: string;
  /** Required by a run its operator signed. */
  signature?: ControlSignature;
}

/** The run's answer to a control Update. */
export interface ControlReceipt {
  id: string;
  kind: ControlKind;
  /** The run's status after the message was taken. */
  status: RunStatus;
  /** Messages queued before this one is read, this one included (`message`, `interrupt`). */
  queued?: number;
  /** Set when a message of this id was already taken: nothing was applied again. */
  duplicate?: boolean;
  /** What an interrupt cancelled (`model call of step 4`, `Bash call_2`); empty when nothing was under way. */
  interrupted?: string[];
}

/** Control message ids: what a CLI or a script can type, and short enough for search and logs. */
export const CONTROL_ID_PATTERN = /^[A-Za-z0-9_.:-]{1,100}$/;

/** The longest steering message, in UTF-8 bytes: a message is a request, a file belongs in the workspace. */
export const MAX_CONTROL_TEXT_BYTES = 32 * 1024;

/** Update `sendMessage`: a user message the run reads at its next step boundary. */
export const sendMessage = defineUpdate<ControlReceipt, [ControlRequest]>('sendMessage');
/** Signal `userMessage`: the same message, for senders that cannot wait for an answer. */
export const userMessage = defineSignal<[ControlRequest]>('userMessage');

/** Update `interrupt`: cancels the model call or the tool calls under way; `text` is then read as a message. */
export const interruptRun = defineUpdate<ControlReceipt, [ControlRequest]>('interrupt');
/** Signal `interruptRun`: the same, for senders that cannot wait for an answer. */
export const interruptSignal = defineSignal<[ControlRequest]>('interruptRun');

/** Update `pause`: the run stops at its next step boundary and waits, holding no worker, until resumed. */
export const pauseRun = defineUpdate<ControlReceipt, [ControlRequest]>('pause');
/** Signal `pauseRun`. */
export const pauseSignal = defineSignal<[ControlRequest]>('pauseRun');

/** Update `resume`: a paused run goes on. */
export const resumeRun = defineUpdate<ControlReceipt, [ControlRequest]>('resume');
/** Signal `resumeRun`. */
export const resumeSignal = defineSignal<[ControlRequest]>('resumeRun');

/** What the `verifyControl` activity checks: one control message of one run. */
export interface VerifyControlRequest {
  workflowId: string;
  kind: ControlKind;
  request: ControlRequest;
}

/** The Update of each kind, as a sender names it. */
export const CONTROL_UPDATES = {
  message: sendMessage,
  interrupt: interruptRun,
  pause: pauseRun,
  resume: resumeRun,
} as const satisfies Record<ControlKind, unknown>;
