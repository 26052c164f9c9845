// The worker is SIGKILLed while a read-only MCP call runs on its connection: the server notices when the call's
// heartbeats stop, and the next worker makes the call again on a connection of its own (a read-only tool may be
// repeated). Resuming is measured to the moment the call starts again on the server (the call waits 30 s: long enough
// to still be running once the replacement worker is up on a loaded machine).
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { faultMarker } from './markers.js';
import { finishFaultRun, startFaultRun } from './fault-run.js';
import type { FaultEnv, FaultOutcome } from './fault-run.js';
import { fixtureServer } from '../mcp-servers.js';
import { waitFor } from '../wait.js';

const ANSWER = 'The MCP read answered after the worker crash.';
const STARTED = /slow_read start/g;

export async function mcpCallKill(env: FaultEnv): Promise<FaultOutcome> {
  const { run, first } = await startFaultRun(env, {
    script: [
      { tool_calls: [{ id: 'wait', name: 'mcp__fixture__slow_read', arguments: { seconds: 30 } }] },
      { content: ANSWER },
    ],
    // The run brings its own stdio server, started (in the command sandbox) by whichever worker makes the call.
    input: (workspace) => ({
      mcpServers: { fixture: fixtureServer(path.join(workspace, 'mcp.log')) },
      askPolicy: 'approve',
    }),
    workerEnv: { DURABLE_AGENT_MCP_RUN_SERVERS: 'all' },
  });
  const log = path.join(run.workspace, 'mcp.log');
  const starts = async (): Promise<number> =>
    ((await readFile(log, 'utf8').catch(() => '')).match(STARTED) ?? []).length;
  try {
    await waitFor(
      async () => ((await starts()) >= 1 ? true : undefined),
      'the MCP call to reach its server',
      faultMarker,
    );
    await run.startWorker();
    // Proof the kill lands in the window: the call has not answered yet.
    if ((await readFile(log, 'utf8')).includes('slow_read end'))
      throw new Error('the MCP call answered before its worker could be killed');
    const faultAt = Date.now();
    await first.kill();
    await waitFor(async () => ((await starts()) >= 2 ? true : undefined), 'the MCP call to start again', faultMarker);
    const resumedAt = Date.now();
    return await finishFaultRun(run, {
      scenario: 'worker SIGKILL during an MCP call',
      faultAt,
      resumedAt,
      answer: ANSWER,
    });
  } finally {
    await run.close();
  }
}
