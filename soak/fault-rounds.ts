// A fault scenario repeated `rounds` times: every round is a fresh run, workspace and worker processes; a round passes
// when its outcome has no problem at all. soak/faults.ts and soak/store-faults.ts say what each scenario checks.
import { faultProblems } from '../test/support/faults/fault-run.js';
import type { FaultEnv, FaultOutcome } from '../test/support/faults/fault-run.js';
import type { Figure, Scenario, ScenarioResult } from './scenario.js';

/** What one kind of fault checks and reports beyond faultProblems. */
export interface FaultRounds<O extends FaultOutcome> {
  /** One round: the fault and the run it hits. */
  run: (env: FaultEnv) => Promise<O>;
  /** The command that reproduces the scenario alone. */
  command: string;
  /** Problems of an outcome besides faultProblems (default none). */
  problems?: (outcome: O) => string[];
  /** Side effects applied more than once besides the outcome's `duplicated` (default none). */
  extraDuplicated?: (outcome: O) => number;
  /** What the round's progress line adds after its verdict (default nothing). */
  roundNote?: (outcome: O) => string;
  /** The figures of all rounds. */
  figures: (outcomes: O[]) => Figure[];
  /** Rewrites a problem for the notes, so rounds that failed alike share one note (default as it is). */
  noteOf?: (problem: string) => string;
}

export function faultRounds<O extends FaultOutcome>(name: string, rounds: FaultRounds<O>): Scenario {
  return async (options) => {
    const outcomes: O[] = [];
    const notes = new Set<string>();
    let passed = 0;
    for (let round = 1; round <= options.rounds; round++) {
      try {
        const outcome = await rounds.run({ address: options.address, bundlePath: options.bundlePath });
        outcomes.push(outcome);
        const problems = [...faultProblems(outcome), ...(rounds.problems?.(outcome) ?? [])];
        if (problems.length === 0) passed++;
        for (const problem of problems) notes.add(rounds.noteOf?.(problem) ?? problem);
        const verdict = problems.length ? problems.join('; ') : 'survived';
        options.log(`${name} round ${round}: ${verdict}${rounds.roundNote?.(outcome) ?? ''}`);
      } catch (error) {
        notes.add(`a round failed: ${(error as Error).message.split('\n')[0]}`);
        options.log(`${name} round ${round} failed: ${(error as Error).stack}`);
      }
    }
    const result: ScenarioResult = {
      name,
      runs: options.rounds,
      passed,
      lost: outcomes.reduce((sum, outcome) => sum + outcome.lost.length + outcome.wrongFiles.length, 0),
      duplicated: outcomes.reduce(
        (sum, outcome) => sum + outcome.duplicated.length + (rounds.extraDuplicated?.(outcome) ?? 0),
        0,
      ),
      notes: [...notes],
      figures: rounds.figures(outcomes),
      command: rounds.command,
    };
    return result;
  };
}
