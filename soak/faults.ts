// The fault scenarios of test/workflows/faults.e2e.test.ts, each repeated `rounds` times: every round is a fresh run,
// workspace and worker processes; a round passes when the outcome has no problem at all.
import { commandKill } from '../test/support/faults/command-kill.js';
import { faultProblems } from '../test/support/faults/fault-run.js';
import type { FaultEnv, FaultOutcome } from '../test/support/faults/fault-run.js';
import { fileWriteKill } from '../test/support/faults/file-write-kill.js';
import { mcpCallKill } from '../test/support/faults/mcp-call-kill.js';
import { modelCallKill } from '../test/support/faults/model-call-kill.js';
import { serverRestart } from '../test/support/faults/server-restart.js';
import { streamDrop } from '../test/support/faults/stream-drop.js';
import { spread } from './format.js';
import type { Scenario, ScenarioResult } from './scenario.js';

function repeated(name: string, testName: string, run: (env: FaultEnv) => Promise<FaultOutcome>): Scenario {
  return async (options) => {
    const outcomes: FaultOutcome[] = [];
    const notes = new Set<string>();
    let passed = 0;
    for (let round = 1; round <= options.rounds; round++) {
      try {
        const outcome = await run({ address: options.address, bundlePath: options.bundlePath });
        outcomes.push(outcome);
        const problems = faultProblems(outcome);
        if (problems.length === 0) passed++;
        for (const problem of problems)
          notes.add(problem.replace(/\d+: bash .*# fault-[0-9a-f]+/, 'the command’s shell'));
        options.log(
          `${name} round ${round}: ${problems.length ? problems.join('; ') : 'survived'}, resumed in ${outcome.resumeMs} ms`,
        );
      } catch (error) {
        notes.add(`a round failed: ${(error as Error).message.split('\n')[0]}`);
        options.log(`${name} round ${round} failed: ${(error as Error).stack}`);
      }
    }
    const retried = [...new Set(outcomes.flatMap((outcome) => outcome.retried))];
    const result: ScenarioResult = {
      name,
      runs: options.rounds,
      passed,
      lost: outcomes.reduce((sum, outcome) => sum + outcome.lost.length + outcome.wrongFiles.length, 0),
      duplicated: outcomes.reduce((sum, outcome) => sum + outcome.duplicated.length, 0),
      notes: [...notes],
      figures: [
        { label: 'time to resume', value: spread(outcomes.map((outcome) => outcome.resumeMs)) },
        ...(retried.length ? [{ label: 'retried', value: retried.join(', ') }] : []),
      ],
      command: `npx vitest run test/workflows/faults.e2e.test.ts -t "${testName}"`,
    };
    return result;
  };
}

export const modelCallKillScenario = repeated(
  'worker SIGKILL during a model call',
  'during a model call',
  modelCallKill,
);
export const fileWriteKillScenario = repeated(
  'worker SIGKILL between temp file and rename',
  'between the temp file and the rename',
  fileWriteKill,
);
export const commandKillScenario = repeated('worker SIGKILL during a command', 'during a command', commandKill);
export const mcpCallKillScenario = repeated('worker SIGKILL during an MCP call', 'read-only MCP call', mcpCallKill);
export const serverRestartScenario = repeated(
  'Temporal server SIGKILL and restart (SQLite)',
  'restarted on its SQLite file',
  serverRestart,
);
export const streamDropScenario = repeated('model endpoint drops the connection mid-stream', 'mid-stream', streamDrop);
