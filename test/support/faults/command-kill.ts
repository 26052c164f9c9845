// The worker is SIGKILLed while a Bash command runs. Bash is never retried (a command is not idempotent): the server
// notices the silence (the call's 3 s heartbeat timeout), the model is told the worker was lost, and the run goes on.
// The command must not outlive its worker: no process of it may be left running.
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { faultMarker } from './markers.js';
import { finishFaultRun, killProcessesWith, startFaultRun } from './fault-run.js';
import type { FaultEnv, FaultOutcome } from './fault-run.js';
import { waitFor } from '../wait.js';

const ANSWER = 'The command was interrupted and reported; the run went on.';

export async function commandKill(env: FaultEnv): Promise<FaultOutcome> {
  // Only this command's processes have it in their command line (whatever pid namespace they run in).
  const token = `fault-${randomBytes(6).toString('hex')}`;
  const { run, first } = await startFaultRun(env, {
    script: [
      {
        tool_calls: [
          {
            id: 'slow',
            name: 'Bash',
            arguments: {
              command: `echo $$ > command.pid; echo start >> ledger.txt; sleep 120; echo end >> ledger.txt # ${token}`,
            },
          },
        ],
      },
      { tool_calls: [{ name: 'Bash', arguments: { command: 'echo after >> ledger.txt' } }] },
      { content: ANSWER },
    ],
  });
  try {
    const pid = await waitFor(
      async () => (await readFile(path.join(run.workspace, 'command.pid'), 'utf8')).trim() || undefined,
      'the command to start',
      faultMarker,
    );
    await run.startWorker();
    const faultAt = Date.now();
    await first.kill();
    return await finishFaultRun(run, {
      scenario: 'worker SIGKILL during a command',
      faultAt,
      answer: ANSWER,
      // "end" would mean the command ran on after its worker died.
      ledger: ['start', 'after'],
      processToken: token,
      notes: [`command pid ${pid}`],
    });
  } finally {
    await run.close();
    killProcessesWith(token);
  }
}
