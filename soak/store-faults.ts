// The content store faults of test/workflows/store-faults.e2e.test.ts, each repeated `rounds` times: the S3 store
// (s3proxy) down for 60 s mid-run, the directory store's disk full for 10 s. A round passes when the run survived
// (faultProblems), every tool result reached the model, the model was asked once a turn, and for the full disk no
// object under the store was truncated.
import { faultProblems } from '../test/support/faults/fault-run.js';
import type { FaultEnv, FaultOutcome } from '../test/support/faults/fault-run.js';
import { storeDiskFull } from '../test/support/faults/store-disk-full.js';
import { storeOutage } from '../test/support/faults/store-outage.js';
import { spread } from './format.js';
import type { Scenario, ScenarioResult } from './scenario.js';

interface StoreFaultOutcome extends FaultOutcome {
  toolResults: string[];
  modelRequests: number;
  faultMs: number;
  afterFaultMs: number;
}

function storeFault(
  name: string,
  testName: string,
  turns: number,
  run: (env: FaultEnv) => Promise<StoreFaultOutcome & { badObjects?: string[] }>,
): Scenario {
  return async (options) => {
    const outcomes: StoreFaultOutcome[] = [];
    const notes = new Set<string>();
    let passed = 0;
    for (let round = 1; round <= options.rounds; round++) {
      try {
        const outcome = await run({ address: options.address, bundlePath: options.bundlePath });
        outcomes.push(outcome);
        const problems = [
          ...faultProblems(outcome),
          ...outcome.toolResults.filter((result) => !result.endsWith(': success')).map((result) => `result ${result}`),
          ...(outcome.modelRequests === turns ? [] : [`${outcome.modelRequests} model requests for ${turns} turns`]),
          ...(outcome.badObjects ?? []).map((object) => `written half: ${object}`),
        ];
        if (problems.length === 0) passed++;
        for (const problem of problems) notes.add(problem);
        options.log(`${name} round ${round}: ${problems.length ? problems.join('; ') : 'survived'}`);
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
        (sum, outcome) => sum + outcome.duplicated.length + Math.max(0, outcome.modelRequests - turns),
        0,
      ),
      notes: [...notes],
      figures: [
        { label: 'run waited (fault to its end)', value: spread(outcomes.map((outcome) => outcome.faultMs)) },
        { label: 'fault end to next model call', value: spread(outcomes.map((outcome) => outcome.afterFaultMs)) },
      ],
      command: `npx vitest run --project e2e test/workflows/store-faults.e2e.test.ts -t "${testName}"`,
    };
    return result;
  };
}

export const storeOutageScenario = storeFault('S3 content store down for 60 s', 'stopped for 60 s', 4, (env) =>
  storeOutage(env, { downMs: 60_000 }),
);
export const storeDiskFullScenario = storeFault('directory store disk full for 10 s', 'disk is full', 3, (env) =>
  storeDiskFull(env, { fullMs: 10_000 }),
);
