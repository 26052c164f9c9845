// Workflow-safe and deterministic: pause and resume (protocol/run-control). A pause is taken at once and kept in the
// run's state (carried through continue-as-new); the run stops at its next step boundary — after the model call, the
// tool calls or the approval wait under way — and waits there, holding no worker, until a resume clears it.
import type { ControlRequest } from '../../protocol/run-control.js';
import type { AgentState } from '../state.js';
import { addEvent, addProgress } from '../state.js';
import { rememberControl } from './inbox.js';

/** Whether a pause waits to take effect, or is in effect. */
export function isPauseRequested(state: AgentState): boolean {
  return state.pause !== undefined;
}

/** Takes a pause (checked already). A run already paused, or pausing, stays so: the first pause's reason stands. */
export function requestPause(state: AgentState, request: ControlRequest, at: number): void {
  rememberControl(state, request.id);
  if (state.pause) return;
  const reason = request.text?.trim();
  state.pause = {
    id: request.id,
    at,
    ...(reason ? { reason } : {}),
    ...(request.sent_by ? { sentBy: request.sent_by } : {}),
  };
  addEvent(state, 'pause_requested', at, { id: request.id, ...(reason ? { reason } : {}) });
}

/** Why the run refuses a resume: it is neither paused nor pausing (nothing to resume). */
export function resumeRefusal(state: AgentState): string | undefined {
  return state.pause ? undefined : `the run is not paused (it is ${state.status})`;
}

/** Takes a resume (checked already): the run goes on, or — when its pause had not taken effect yet — never stops. */
export function resume(state: AgentState, request: ControlRequest, at: number): void {
  rememberControl(state, request.id);
  const pause = state.pause!;
  state.pause = undefined;
  const by = request.sent_by ? ` by ${request.sent_by}` : '';
  if (pause.since === undefined) {
    addProgress(state, {
      kind: 'control',
      status: 'resumed',
      step: state.step,
      text: `pause ${pause.id} withdrawn${by} before it took effect`,
    });
  } else {
    state.status = 'running';
    addProgress(state, {
      kind: 'control',
      status: 'resumed',
      step: state.step,
      text: `resumed${by} after ${Math.round((at - pause.since) / 1000)} s paused`,
      ms: at - pause.since,
    });
  }
  addEvent(state, 'resumed', at, { id: request.id, pause: pause.id });
}

/** The run reached a step boundary with a pause requested: it is paused from now on. */
export function enterPause(state: AgentState, at: number): void {
  const pause = state.pause!;
  pause.since = at;
  state.status = 'paused';
  addProgress(state, { kind: 'control', status: 'paused', step: state.step, text: pausedLine(state) });
  addEvent(state, 'paused', at, { id: pause.id, after_step: state.step });
}

/** What a paused run says about itself (the Web UI's timer summary, the progress line). */
export function pausedLine(state: AgentState): string {
  const pause = state.pause;
  const by = pause?.sentBy ? ` by ${pause.sentBy}` : '';
  const reason = pause?.reason ? `: ${oneLine(pause.reason)}` : '';
  return `paused${by} after step ${state.step}${reason} — resume with durable-agent resume ${state.taskId}`;
}

function oneLine(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > 120 ? `${line.slice(0, 119)}…` : line;
}
