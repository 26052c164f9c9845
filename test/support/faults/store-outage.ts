// The S3-compatible content store (s3proxy) is SIGKILLed while a model call is in flight and kept down for a while,
// then started again on the same port and data. The run waits (its activities fail with a message naming the store
// and are retried), then goes on; nothing it did before is lost or done again.
import { finishFaultRun, ledgerScript, startFaultRun } from './fault-run.js';
import type { FaultEnv, FaultOutcome } from './fault-run.js';
import { faultMarker } from './markers.js';
import { pendingFailures } from './pending-failures.js';
import { startS3Server } from '../s3-server.js';
import { toolResult } from '../tool-result.js';
import { waitFor } from '../wait.js';

const ANSWER = 'Both lines are in the ledger; the run waited for the content store.';

/** What an operator saw while the store was down, and how the model was called. */
export interface StoreOutageOutcome extends FaultOutcome {
  endpoint: string;
  /** Distinct last-failure messages and heartbeat details of the run's pending activities while the store was down. */
  operatorMessages: string[];
  /** Each tool call's result as the model read it: "id: status (error message)". */
  toolResults: string[];
  /** Model requests made in all (4 turns: 4 means none was made twice). */
  modelRequests: number;
  /** From the fault to its end (the store answering again, the space freed), and from then to the next model call. */
  faultMs: number;
  afterFaultMs: number;
}

export async function storeOutage(env: FaultEnv, options: { downMs: number }): Promise<StoreOutageOutcome> {
  const s3 = await startS3Server();
  try {
    const { run } = await startFaultRun(env, {
      workerEnv: s3.storeEnv('outage/'),
      // The turn in flight when the store goes away: its answer is stored once the store is back.
      script: ledgerScript(2_000, ANSWER),
    });
    try {
      await waitFor(async () => (run.servedAt.has(2) ? true : undefined), 'the second model call', faultMarker);
      const faultAt = Date.now();
      await s3.kill();
      const seen = new Set<string>();
      while (Date.now() - faultAt < options.downMs) {
        for (const message of await pendingFailures(run.handle)) seen.add(message);
        await new Promise((resolve) => setTimeout(resolve, 1_000));
      }
      const restartAt = Date.now();
      await s3.restart();
      const backAt = Date.now();
      const outcome = await finishFaultRun(run, {
        scenario: `S3 content store down for ${Math.round(options.downMs / 1000)} s`,
        faultAt,
        answer: ANSWER,
        files: { 'new.txt': 'created\n' },
        ledger: ['one', 'two'],
      });
      const last = run.model.requests.at(-1)!.messages;
      const toolResults = ['before', 'during', 'after'].map((id) => {
        const result = toolResult(last, id);
        return `${id}: ${result.status}${result.status === 'success' ? '' : ` (${JSON.stringify(result.error ?? result)})`}`;
      });
      const resumedAt = [...run.servedAt.values()].filter((at) => at > backAt).sort((a, b) => a - b)[0];
      return {
        ...outcome,
        endpoint: s3.endpoint,
        operatorMessages: [...seen],
        toolResults,
        modelRequests: run.model.requests.length,
        faultMs: backAt - faultAt,
        afterFaultMs: resumedAt === undefined ? Number.NaN : resumedAt - backAt,
        notes: [
          `store down ${backAt - faultAt} ms (restart took ${backAt - restartAt} ms)`,
          `next model call ${resumedAt === undefined ? 'never' : `${resumedAt - backAt} ms`} after the store was back`,
        ],
      };
    } finally {
      await run.close();
    }
  } finally {
    await s3.stop();
  }
}
