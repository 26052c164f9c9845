// Workflow-safe: the state a fork starts from — a recorded run's state after one of its steps, made a new run's.
import { appendMessages, workflowMessage } from '../../protocol/transcript-ref.js';
import type { AgentState } from '../state.js';
import { addProgress, emptyUsage } from '../state.js';

/** Where a fork came from (its memo's `forkedFrom`). */
export interface ForkOrigin {
  workflowId: string;
  runId: string;
  step: number;
}

/**
 * A new run's state from `original`, the state after `original.step`. Kept: the transcript (with `taskAppend` as a
 * new user message), the step count (the fork's steps go on from there, so they line up with the original's), the
 * recorded tools and what the run read (read-before-write: a file changed since is re-read before an edit). Started
 * afresh: status, answer, spending (a fork pays for its own model calls), tool-call count, breakers, the approvals an
 * operator granted for the rest of the original task, progress and trace.
 */
export function forkState(
  original: AgentState,
  fork: { taskId: string; origin: ForkOrigin; taskAppend?: string },
): AgentState {
  const state: AgentState = {
    ...original,
    taskId: fork.taskId,
    status: 'running',
    pendingWrites: { ...original.pendingWrites },
    usage: emptyUsage(),
    toolCalls: 0,
    breakers: {},
    approvals: [],
    progress: [],
    events: [],
    runs: 0,
  };
  delete state.answer;
  delete state.error;
  delete state.lastTool;
  if (fork.taskAppend) {
    const message = workflowMessage({ role: 'user', content: fork.taskAppend }, state.pendingWrites);
    state.transcript = appendMessages(state.transcript, [{ ...message, role: 'user' }], state.pendingWrites);
  }
  const { workflowId, step } = fork.origin;
  addProgress(state, { kind: 'continued', step, text: `forked from ${workflowId} after step ${step}` });
  return state;
}
