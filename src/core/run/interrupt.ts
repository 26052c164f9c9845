// Workflow-safe and deterministic: what an interrupt (protocol/run-control) leaves for the model. The workflow cancels
// what is under way (workflows/interrupt); here the interrupt is recorded, and a note of what was interrupted — with
// the operator's message, if any — is queued like a steering message (core/run/inbox), read at the next step boundary.
import type { ControlRequest } from '../../protocol/run-control.js';
import type { AgentState } from '../state.js';
import { addEvent, addProgress } from '../state.js';
import { queueMessage, rememberControl } from './inbox.js';

/**
 * Records an interrupt that cancelled `interrupted` (labels such as `model call of step 4`, `Bash call_2`); returns
 * how many messages are queued. With nothing interrupted and no message, nothing is queued: there is nothing to tell.
 */
export function recordInterrupt(
  state: AgentState,
  request: ControlRequest,
  interrupted: readonly string[],
  at: number,
): number | undefined {
  const by = request.sent_by ? ` by ${request.sent_by}` : '';
  addProgress(state, {
    kind: 'control',
    status: 'interrupted',
    step: state.step,
    text: interrupted.length
      ? `interrupted${by}: ${interrupted.join(', ')}`
      : `interrupt${by}: nothing was under way${request.text?.trim() ? ' (its message is queued)' : ''}`,
  });
  addEvent(state, 'interrupted', at, { id: request.id, interrupted: [...interrupted] });
  const text = interruptNote(interrupted, request);
  if (text === undefined) {
    rememberControl(state, request.id);
    return undefined;
  }
  return queueMessage(state, { ...request, text }, at);
}

/** The user message the model reads after an interrupt; undefined when there is nothing to say. */
export function interruptNote(interrupted: readonly string[], request: ControlRequest): string | undefined {
  const message = request.text?.trim();
  if (interrupted.length === 0) return message || undefined;
  const note = `[The operator interrupted ${interrupted.join(', ')}. What was cancelled did not finish; results that came back before it are kept.]`;
  return message ? `${note}\n\n${message}` : note;
}
