// The worker is SIGKILLed between writing an edit's temp file and renaming it over the file: the old content is still
// in place, the new bytes sit beside it. The paused write heartbeats until its worker dies; the server notices the silence
// (the 3 s heartbeat timeout) and the retry on another worker applies the edit once and removes the temp file left.
import { mkdtemp, readdir } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { faultMarker } from './markers.js';
import { atomicWriteTemps, finishFaultRun, startFaultRun } from './fault-run.js';
import type { FaultEnv, FaultOutcome } from './fault-run.js';
import { waitFor } from '../wait.js';

const ANSWER = 'The note has its second line; the edit survived the worker crash.';

export async function fileWriteKill(env: FaultEnv): Promise<FaultOutcome> {
  const marker = path.join(await mkdtemp(path.join(os.tmpdir(), 'durable-agent-pause-')), 'paused.json');
  const { run, first } = await startFaultRun(env, {
    files: { 'notes.txt': 'alpha\n' },
    pauseBeforeCommit: marker,
    script: [
      { tool_calls: [{ name: 'ReadFile', arguments: { path: 'notes.txt' } }] },
      {
        tool_calls: [
          { name: 'EditFile', arguments: { path: 'notes.txt', old_string: 'alpha', new_string: 'alpha\nbeta' } },
        ],
      },
      { content: ANSWER },
    ],
  });
  try {
    await waitFor(
      async () => ((await readdir(path.dirname(marker))).includes(path.basename(marker)) ? true : undefined),
      'the edit to pause before its rename',
      faultMarker,
    );
    // Proof the kill lands in the window: the temp file exists and the rename has not happened.
    const tempsAtKill = await atomicWriteTemps(run.workspace);
    await run.startWorker();
    const faultAt = Date.now();
    await first.kill();
    return await finishFaultRun(run, {
      scenario: 'worker SIGKILL between temp file and rename',
      faultAt,
      answer: ANSWER,
      files: { 'notes.txt': 'alpha\nbeta\n' },
      notes: [`temp files at the kill: ${tempsAtKill.join(', ') || 'none'}`],
    });
  } finally {
    await run.close();
  }
}
