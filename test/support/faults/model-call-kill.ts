// The worker is SIGKILLed while the model is still answering: the server notices when the call's heartbeats stop
// (its 3 s heartbeat timeout) and another worker makes the call again.
import { faultMarker } from './markers.js';
import { finishFaultRun, startFaultRun } from './fault-run.js';
import type { FaultEnv, FaultOutcome } from './fault-run.js';
import { waitFor } from '../wait.js';

const ANSWER = 'Both lines are in the ledger; the model call survived the worker crash.';

export async function modelCallKill(env: FaultEnv): Promise<FaultOutcome> {
  const { run, first } = await startFaultRun(env, {
    script: [
      { tool_calls: [{ name: 'Bash', arguments: { command: 'echo one >> ledger.txt' } }] },
      // Claimed by the call the kill interrupts; its answer never leaves the server.
      { content: 'never delivered', delay_ms: 600_000 },
      { tool_calls: [{ name: 'Bash', arguments: { command: 'echo two >> ledger.txt' } }] },
      { content: ANSWER },
    ],
  });
  try {
    await waitFor(async () => (run.servedAt.has(2) ? true : undefined), 'the second model call', faultMarker);
    // The replacement is already polling, as the other workers of a deployment are: the time measured is the
    // server's, not a process start.
    await run.startWorker();
    const faultAt = Date.now();
    await first.kill();
    return await finishFaultRun(run, {
      scenario: 'worker SIGKILL during a model call',
      faultAt,
      answer: ANSWER,
      ledger: ['one', 'two'],
    });
  } finally {
    await run.close();
  }
}
