// The content store faults of test/workflows/store-faults.e2e.test.ts, each repeated `rounds` times: the S3 store
// (s3proxy) down for 60 s mid-run, the directory store's disk full for 10 s. A round passes when the run survived
// (faultProblems), every tool result reached the model, the model was asked once a turn, and for the full disk no
// object under the store was truncated.
import type { FaultEnv, FaultOutcome } from '../test/support/faults/fault-run.js';
import { storeDiskFull } from '../test/support/faults/store-disk-full.js';
import { storeOutage } from '../test/support/faults/store-outage.js';
import { spread } from './format.js';
import { faultRounds } from './fault-rounds.js';
import type { Scenario } from './scenario.js';

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
  return faultRounds(name, {
    run,
    command: `npx vitest run --project e2e test/workflows/store-faults.e2e.test.ts -t "${testName}"`,
    problems: (outcome) => [
      ...outcome.toolResults.filter((result) => !result.endsWith(': success')).map((result) => `result ${result}`),
      ...(outcome.modelRequests === turns ? [] : [`${outcome.modelRequests} model requests for ${turns} turns`]),
      ...(outcome.badObjects ?? []).map((object) => `written half: ${object}`),
    ],
    extraDuplicated: (outcome) => Math.max(0, outcome.modelRequests - turns),
    figures: (outcomes) => [
      { label: 'run waited (fault to its end)', value: spread(outcomes.map((outcome) => outcome.faultMs)) },
      { label: 'fault end to next model call', value: spread(outcomes.map((outcome) => outcome.afterFaultMs)) },
    ],
  });
}

export const storeOutageScenario = storeFault('S3 content store down for 60 s', 'stopped for 60 s', 4, (env) =>
  storeOutage(env, { downMs: 60_000 }),
);
export const storeDiskFullScenario = storeFault('directory store disk full for 10 s', 'disk is full', 3, (env) =>
  storeDiskFull(env, { fullMs: 10_000 }),
);
