// The fault scenarios of test/workflows/faults.e2e.test.ts, each repeated `rounds` times (soak/fault-rounds.ts).
import { commandKill } from '../test/support/faults/command-kill.js';
import type { FaultEnv, FaultOutcome } from '../test/support/faults/fault-run.js';
import { fileWriteKill } from '../test/support/faults/file-write-kill.js';
import { mcpCallKill } from '../test/support/faults/mcp-call-kill.js';
import { modelCallKill } from '../test/support/faults/model-call-kill.js';
import { serverRestart } from '../test/support/faults/server-restart.js';
import { streamDrop } from '../test/support/faults/stream-drop.js';
import { spread } from './format.js';
import { faultRounds } from './fault-rounds.js';
import type { Scenario } from './scenario.js';

function repeated(name: string, testName: string, run: (env: FaultEnv) => Promise<FaultOutcome>): Scenario {
  return faultRounds(name, {
    run,
    command: `npx vitest run test/workflows/faults.e2e.test.ts -t "${testName}"`,
    noteOf: (problem) => problem.replace(/\d+: bash .*# fault-[0-9a-f]+/, 'the command’s shell'),
    roundNote: (outcome) => `, resumed in ${outcome.resumeMs} ms`,
    figures: (outcomes) => {
      const retried = [...new Set(outcomes.flatMap((outcome) => outcome.retried))];
      return [
        { label: 'time to resume', value: spread(outcomes.map((outcome) => outcome.resumeMs)) },
        ...(retried.length ? [{ label: 'retried', value: retried.join(', ') }] : []),
      ];
    },
  });
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
