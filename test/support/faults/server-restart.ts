// The Temporal server (the dev server on SQLite) is SIGKILLed while a model call is in flight and started again on
// the same ports and database file. The worker and the client reconnect; the call's answer is delivered to the
// restarted server, and nothing the run did before is lost or done again.
import { toolResult } from '../tool-result.js';
import { faultMarker } from './markers.js';
import { finishFaultRun, ledgerScript, startFaultRun } from './fault-run.js';
import type { FaultOutcome } from './fault-run.js';
import { startRestartableTemporalServer } from '../temporal-server.js';
import { waitFor } from '../wait.js';

const ANSWER = 'All three steps happened once; the run survived the server restart.';

export async function serverRestart(options: { bundlePath: string }): Promise<FaultOutcome> {
  const server = await startRestartableTemporalServer({ ui: false, log: () => undefined });
  try {
    const { run } = await startFaultRun(
      { address: server.address, bundlePath: options.bundlePath },
      {
        files: { 'notes.txt': 'alpha\n' },
        // The turn in flight is answered while the server is down or just back: the worker delivers it to the restarted one.
        script: ledgerScript(4_000, ANSWER),
      },
    );
    try {
      await waitFor(async () => (run.servedAt.has(2) ? true : undefined), 'the second model call', faultMarker);
      const faultAt = Date.now();
      await server.kill();
      await server.restart();
      const restartMs = Date.now() - faultAt;
      const outcome = await finishFaultRun(run, {
        scenario: 'Temporal server SIGKILL and restart (SQLite)',
        faultAt,
        answer: ANSWER,
        files: { 'new.txt': 'created\n', 'notes.txt': 'alpha\n' },
        ledger: ['one', 'two'],
        notes: [`server down and back in ${restartMs} ms`],
      });
      // Every call's own result reached the model: none was lost to the restart (a lost one reads "worker lost").
      const last = run.model.requests.at(-1)!.messages;
      const failed = ['before', 'during', 'after'].filter((id) => toolResult(last, id).status !== 'success');
      return { ...outcome, lost: [...outcome.lost, ...failed.map((id) => `the result of tool call ${id}`)] };
    } finally {
      await run.close();
    }
  } finally {
    await server.stop();
  }
}
