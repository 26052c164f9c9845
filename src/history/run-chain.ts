// A task's runs as its event histories: the current run and the runs it continued as new from, followed backwards, so
// the chain is the one that actually led to the current run (a run abandoned by a reset is never on it).
import type { Client } from '@temporalio/client';
import type { History } from '@temporalio/common/lib/proto-utils.js';
import type { RunHistory } from './history-reader.js';
import { previousRun, readRunHistory } from './history-reader.js';

/** One run of a chain: its event history, and the run read from it. */
export interface ChainRun {
  history: History;
  run: RunHistory;
}

/** MAX_RUNS bounds the walk along a continue-as-new chain (a task continues every few steps at most). */
const MAX_RUNS = 1000;

/** The chain oldest first; only the run named when `runId` is given. A missing run is WorkflowNotFoundError. */
export async function readChain(client: Client, workflowId: string, runId?: string): Promise<ChainRun[]> {
  const read = async (id: string | undefined): Promise<ChainRun> => {
    const handle = client.workflow.getHandle(workflowId, id);
    // describe first: it names a missing run clearly (WorkflowNotFoundError), fetchHistory only with a gRPC status.
    const description = await handle.describe();
    const history = await handle.fetchHistory();
    return { history, run: readRunHistory(history, { workflowId, runId: description.runId }) };
  };
  const chain = [await read(runId)];
  if (runId) return chain;
  let previous = previousRun(chain[0]!.history);
  while (previous && chain.length < MAX_RUNS) {
    const run = await read(previous);
    chain.unshift(run);
    previous = previousRun(run.history);
  }
  return chain;
}
