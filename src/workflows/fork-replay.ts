// Workflow-safe: entry of the bundle `durable-agent fork` replays a recorded run with: the same workflows, plus an observer
// that hands the state at every step boundary to the replaying process (a sink called during replay).
import { proxySinks } from '@temporalio/workflow';
import type { Sinks } from '@temporalio/workflow';
import type { AgentInput, AgentState } from '../core/state.js';
import { stepBoundaryObservers } from './step-boundary.js';

export { agentWorkflow } from './agent.js';

/** A run between two steps. */
export interface StepSnapshot {
  input: AgentInput;
  state: AgentState;
}

/** The sink the replaying process provides. */
export interface ForkSinks extends Sinks {
  fork: {
    /**
     * The run's input (without the state it resumed from) and its state after `step`, as the JSON of a
     * `StepSnapshot`: taken at the boundary, so later steps cannot change it.
     */
    stateAfterStep(step: number, snapshot: string): void;
  };
}

const { fork } = proxySinks<ForkSinks>();
stepBoundaryObservers.push((input, state) => {
  const snapshot: StepSnapshot = { input: { ...input, resume: undefined }, state };
  fork.stateAfterStep(state.step, JSON.stringify(snapshot));
});
