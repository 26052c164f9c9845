// Node: `fork`: a new run from a recorded run's state after one of its steps (src/cli/fork-from-step.ts, which
// `rewind --conversation` starts too).
export { forkFromStep as forkCommand } from '../fork-from-step.js';
