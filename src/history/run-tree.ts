// Node: a run with its sub-agents nested under the Task calls that started them, each read from its own history.
import type { Client } from '@temporalio/client';
import { WorkflowNotFoundError } from '@temporalio/client';
import type { RunHistory } from './history-reader.js';
import { mergeRunHistories } from './history-reader.js';
import { readChain } from './run-chain.js';
import type { ChainRun } from './run-chain.js';

/** One task's chain read as one run (its runs continued as new, merged). */
export async function readTask(client: Client, workflowId: string, runId?: string): Promise<RunHistory> {
  return taskOf(await readChain(client, workflowId, runId));
}

/** A chain already read, as one run. */
export function taskOf(chain: readonly ChainRun[]): RunHistory {
  return chain.length === 1 ? chain[0]!.run : mergeRunHistories(chain.map((link) => link.run));
}

/**
 * Fills in the history of every sub-agent `run` started, down to `depth` levels (0: none), children of a step read
 * side by side. A child the server no longer has keeps its call's line without steps.
 */
export async function nestSubAgents(client: Client, run: RunHistory, depth: number): Promise<void> {
  if (depth <= 0) return;
  const calls = run.steps.flatMap((step) => step.tools).filter((tool) => tool.subAgent);
  await Promise.all(
    calls.map(async (call) => {
      const subAgent = call.subAgent!;
      const child = await readTask(client, subAgent.workflowId).catch((error: unknown) => {
        if (error instanceof WorkflowNotFoundError) return undefined;
        throw error;
      });
      if (!child) return;
      await nestSubAgents(client, child, depth - 1);
      subAgent.history = child;
    }),
  );
}
