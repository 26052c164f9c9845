// Load: 50 runs at once on one worker process, `rounds` times, each run a WriteFile, three Bash appends and the
// answer. The worker's RSS is sampled from /proc, so the memory is the worker's alone.
import { runLoad } from '../test/support/load-run.js';
import type { LoadOutcome } from '../test/support/load-run.js';
import { mebibytes, spread } from './format.js';
import type { Scenario } from './scenario.js';

const RUNS = 50;
const STEPS = 5;

export const loadScenario: Scenario = async (options) => {
  const outcomes: LoadOutcome[] = [];
  const notes = new Set<string>();
  for (let round = 1; round <= options.rounds; round++) {
    try {
      const outcome = await runLoad(
        { address: options.address, bundlePath: options.bundlePath },
        { runs: RUNS, steps: STEPS },
      );
      outcomes.push(outcome);
      for (const failure of outcome.failures) notes.add(failure);
      options.log(
        `load round ${round}: ${outcome.finished}/${RUNS} finished in ${Math.round(outcome.wallMs)} ms, peak RSS ${mebibytes(outcome.peakRssBytes)}`,
      );
    } catch (error) {
      notes.add(`a round failed: ${(error as Error).message.split('\n')[0]}`);
    }
  }
  const worst = <K extends keyof LoadOutcome>(key: K) => Math.max(...outcomes.map((outcome) => outcome[key] as number));
  const best = <K extends keyof LoadOutcome>(key: K) => Math.min(...outcomes.map((outcome) => outcome[key] as number));
  const total = (key: 'heartbeatTimeouts' | 'slowWorkflowTasks') =>
    outcomes.reduce((sum, outcome) => sum + outcome.timings[key], 0);
  const finished = outcomes.reduce((sum, outcome) => sum + outcome.finished, 0);
  return {
    name: `${RUNS} concurrent runs of ${STEPS} steps on one worker`,
    runs: options.rounds * RUNS,
    passed: finished,
    lost: [...notes].filter((note) => / lost (?!nothing)/.test(note)).length,
    duplicated: [...notes].filter((note) => / duplicated (?!nothing)/.test(note)).length,
    notes: [...notes],
    figures:
      outcomes.length === 0
        ? []
        : [
            { label: 'runs finished', value: `${finished} of ${options.rounds * RUNS}` },
            { label: 'wall time', value: spread(outcomes.map((outcome) => outcome.wallMs)) },
            {
              label: 'worker RSS idle (after one run)',
              value: `${mebibytes(best('idleRssBytes'))}–${mebibytes(worst('idleRssBytes'))}`,
            },
            {
              label: 'worker RSS peak',
              value: `${mebibytes(worst('peakRssBytes'))} (VmHWM ${mebibytes(worst('highWaterBytes'))})`,
            },
            {
              label: 'false heartbeat timeouts, workflow tasks over 1 s',
              value: `${total('heartbeatTimeouts')}, ${total('slowWorkflowTasks')} (longest ${Math.max(...outcomes.map((outcome) => outcome.timings.longestWorkflowTaskMs))} ms)`,
            },
            {
              label: 'RSS per run, (peak − idle) ÷ 50',
              value: `${mebibytes(best('perRunBytes'))}–${mebibytes(worst('perRunBytes'))}`,
            },
          ],
    command: 'npx vitest run test/workflows/load.e2e.test.ts (50 runs of 3 steps); npm run soak -- --only load',
  };
};
