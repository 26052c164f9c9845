// Workflow-safe and deterministic: the operator's messages to a run (protocol/run-control). A message is checked when it
// arrives, queued in the run's state (carried through continue-as-new), and read into the transcript at the next step
// boundary — before the next model call, never between a tool call and its result. Each message id applies once per task.
import { utf8ByteLength } from '../../protocol/envelope.js';
import type { ControlKind, ControlRequest } from '../../protocol/run-control.js';
import { CONTROL_ID_PATTERN, MAX_CONTROL_TEXT_BYTES } from '../../protocol/run-control.js';
import { CONTROL_SIGNATURE_WINDOW_MS } from '../../protocol/run-authorization.js';
import { ENDED_STATUSES } from '../../protocol/run-report.js';
import { appendMessages, workflowMessage } from '../../protocol/transcript-ref.js';
import { visibleText } from '../terminal-text.js';
import type { AgentState, QueuedMessage } from '../state.js';
import { addEvent, addProgress } from '../state.js';

/** How many control ids a task remembers; older ones are refused by their signature's age (or are long applied). */
export const MAX_REMEMBERED_CONTROL_IDS = 1000;

/**
 * Why `request` cannot be taken as a `kind` by this run now (a sentence for the sender), or undefined. A duplicate is
 * not refused: `isDuplicateControl` answers it with the earlier receipt.
 */
export function controlRefusal(state: AgentState, kind: ControlKind, request: ControlRequest): string | undefined {
  if (typeof request !== 'object' || request === null) return 'a control message is an object: {"id", "text"?}';
  if (typeof request.id !== 'string' || !CONTROL_ID_PATTERN.test(request.id))
    return 'id must be 1 to 100 letters, digits or "_.:-" (it names the message, so it applies once)';
  if (request.text !== undefined && typeof request.text !== 'string') return 'text must be a string';
  if (request.sent_by !== undefined && typeof request.sent_by !== 'string') return 'sent_by must be a string';
  if (kind === 'message' && !request.text?.trim()) return 'a message needs a non-empty text';
  if (request.text !== undefined && utf8ByteLength(request.text) > MAX_CONTROL_TEXT_BYTES)
    return `text is ${utf8ByteLength(request.text)} bytes; a message takes at most ${MAX_CONTROL_TEXT_BYTES} (put files in the workspace and name them)`;
  if (ENDED_STATUSES.has(state.status))
    return `the run has ${state.status === 'completed' ? 'finished' : 'ended'} (${state.status})`;
  return undefined;
}

/**
 * Why a signed run refuses a message signed at `issuedAt`, when it is too old or from the future: an operator's CLI
 * signs just before it sends, so an older signature is a captured message replayed.
 */
export function signatureAgeRefusal(issuedAt: number, now: number): string | undefined {
  if (Math.abs(now - issuedAt) <= CONTROL_SIGNATURE_WINDOW_MS) return undefined;
  return `it was signed ${Math.round((now - issuedAt) / 1000)} s ago (a control message is good for ${CONTROL_SIGNATURE_WINDOW_MS / 1000} s)`;
}

/** Whether a control message of this id was already taken by the task. */
export function isDuplicateControl(state: AgentState, id: string): boolean {
  return state.controlIds?.includes(id) ?? false;
}

/** Records that the control message `id` was taken. */
export function rememberControl(state: AgentState, id: string): void {
  const ids = (state.controlIds ??= []);
  ids.push(id);
  if (ids.length > MAX_REMEMBERED_CONTROL_IDS) ids.splice(0, ids.length - MAX_REMEMBERED_CONTROL_IDS);
}

/** Queues a steering message (already checked); returns how many are queued with it. */
export function queueMessage(state: AgentState, request: ControlRequest, at: number): number {
  rememberControl(state, request.id);
  const message: QueuedMessage = {
    id: request.id,
    text: request.text!,
    at,
    step: state.step,
    ...(request.sent_by ? { sentBy: request.sent_by } : {}),
  };
  (state.inbox ??= []).push(message);
  addProgress(state, {
    kind: 'message',
    step: state.step,
    text: `message ${request.id} queued${request.sent_by ? ` from ${request.sent_by}` : ''}: ${preview(message.text)}`,
  });
  addEvent(state, 'user_message_queued', at, {
    id: request.id,
    ...(request.sent_by ? { sent_by: request.sent_by } : {}),
  });
  return state.inbox.length;
}

/** Whether messages wait to be read. */
export function hasQueuedMessages(state: AgentState): boolean {
  return (state.inbox?.length ?? 0) > 0;
}

/**
 * Reads every queued message into the transcript as a user message, in the order they were taken; returns how many.
 * Called at a step boundary, so the next model call sees them after the tool results of the step before.
 */
export function readQueuedMessages(state: AgentState, at: number): number {
  const inbox = state.inbox ?? [];
  if (inbox.length === 0) return 0;
  for (const message of inbox) {
    const ref = workflowMessage({ role: 'user', content: message.text }, state.pendingWrites);
    state.transcript = appendMessages(state.transcript, [{ ...ref, role: 'user' }], state.pendingWrites);
    addProgress(state, {
      kind: 'message',
      step: state.step,
      text: `message ${message.id} read before step ${state.step + 1}`,
    });
    addEvent(state, 'user_message_read', at, { id: message.id, queued_at_step: message.step });
  }
  const read = inbox.length;
  state.inbox = [];
  return read;
}

/** One line of a message for progress lines (the CLI escapes it again when it prints). */
function preview(text: string): string {
  const line = visibleText(text.replace(/\s+/g, ' ').trim());
  return line.length > 80 ? `${line.slice(0, 79)}…` : line;
}

/**
 * The model answered while messages wait: the answer joins the transcript (and is the run's answer so far), and the
 * run goes on to read them instead of completing.
 */
export function keepAnswerForMessages(state: AgentState, content: string | null): void {
  const answer = workflowMessage({ role: 'assistant', content: content ?? '' }, state.pendingWrites);
  state.transcript = appendMessages(state.transcript, [{ ...answer, role: 'assistant' }], state.pendingWrites);
  state.answer = content ?? '';
  addProgress(state, {
    kind: 'answer',
    step: state.step,
    text: `${state.answer} (the run goes on: ${state.inbox?.length ?? 0} message(s) wait to be read)`,
  });
}
