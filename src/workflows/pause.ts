// Workflow-safe: pause and resume (protocol/run-control) — the handlers, and the durable wait at a step boundary. The
// wait is a condition with a timer (the timer's summary is what the Web UI shows: who paused the run and how to resume
// it); a paused run holds no worker slot and survives worker and server restarts like any timer.
import { condition } from '@temporalio/workflow';
import { pauseRun, pauseSignal, resumeRun, resumeSignal } from '../protocol/run-control.js';
import type { AgentState } from '../core/state.js';
import { enterPause, pausedLine, requestPause, resume, resumeRefusal } from '../core/run/pause.js';
import type { ControlDesk } from './run-control.js';

/** The longest one timer of the wait runs; a longer pause starts another (a timer event a month). */
const PAUSE_TIMER = '30 days';

/** Installs the `pause` and `resume` Updates and the `pauseRun` and `resumeRun` Signals. */
export function installPause(controls: ControlDesk, state: AgentState): void {
  controls.install({
    kind: 'pause',
    update: pauseRun,
    signal: pauseSignal,
    description:
      'The run stops at its next step boundary (after the model call, tool calls or approval wait under way) and waits, holding no worker, until resumed: {"id", "text"? (the reason), "sent_by"?, "signature"?}. Pausing a paused run changes nothing.',
    apply: (request) => {
      requestPause(state, request, Date.now());
      return {};
    },
  });
  controls.install({
    kind: 'resume',
    update: resumeRun,
    signal: resumeSignal,
    description:
      'A paused run goes on (a pause not in effect yet is withdrawn): {"id", "sent_by"?, "signature"?}. Refused when the run is not paused.',
    refusal: () => resumeRefusal(state),
    apply: (request) => {
      resume(state, request, Date.now());
      return {};
    },
  });
}

/** At a step boundary with a pause requested: waits, paused, until a resume. */
export async function stayPaused(state: AgentState, publish: () => void): Promise<void> {
  enterPause(state, Date.now());
  publish();
  while (state.pause) await condition(() => state.pause === undefined, PAUSE_TIMER, { summary: pausedLine(state) });
  publish();
}
