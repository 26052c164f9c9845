// Workflow-safe: a window on the run's state between steps. A worker's bundle has no observer here, so a run pays one
// empty loop a step; the bundle `durable-agent fork` replays a history with adds one, to read the state at a step.
import type { AgentInput, AgentState } from '../core/state.js';

/** Called with the run's input and state after each step, before the next begins (`state.step` is the step finished). */
export const stepBoundaryObservers: ((input: AgentInput, state: AgentState) => void)[] = [];
