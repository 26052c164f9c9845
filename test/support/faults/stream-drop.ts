// The model endpoint resets the connection halfway through a stream, once with a tool call half sent and once with
// the final answer half sent. Nothing of a broken stream is used: the call fails as a connection error and Temporal
// retries it (after 1 s); the half-sent tool call never runs.
import { finishFaultRun, startFaultRun } from './fault-run.js';
import type { FaultEnv, FaultOutcome } from './fault-run.js';

const ANSWER = 'One line in the ledger, written once, despite two broken streams.';
const append = { name: 'Bash', arguments: { command: 'echo one >> ledger.txt' } };

export async function streamDrop(env: FaultEnv): Promise<FaultOutcome> {
  const { run } = await startFaultRun(env, {
    script: [
      { tool_calls: [append], chunk_size: 4, drop_connection: true },
      { tool_calls: [append] },
      { content: ANSWER, chunk_size: 4, drop_connection: true },
      { content: ANSWER },
    ],
  });
  try {
    // The first drop is the fault; the outcome's resume time is until the retried request.
    const outcome = await finishFaultRun(run, {
      scenario: 'model endpoint drops the connection mid-stream',
      faultAt: 0,
      answer: ANSWER,
      ledger: ['one'],
    });
    const resumes = [run.servedAt.get(2)! - run.servedAt.get(1)!, run.servedAt.get(4)! - run.servedAt.get(3)!];
    return {
      ...outcome,
      resumeMs: Math.max(...resumes),
      notes: [`drop → retried request: ${resumes.map((ms) => `${ms} ms`).join(', ')}`],
    };
  } finally {
    await run.close();
  }
}
