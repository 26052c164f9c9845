// Node: the state of a recorded run after one of its steps, rebuilt by replaying the run's history with this
// installation's workflow code: the exact state the run had, read-before-write records and pending content included.
import { fileURLToPath } from 'node:url';
import type { History } from '@temporalio/common/lib/proto-utils.js';
import { ReplayError, Worker } from '@temporalio/worker';
import type { InjectedSinks } from '@temporalio/worker';
import { DeterminismViolationError } from '@temporalio/workflow';
import { dataConverterFromEnv } from '../store/data-converter.js';
import { storeFromEnv } from '../store/store-from-env.js';
import type { ForkSinks, StepSnapshot } from '../workflows/fork-replay.js';
import { WorkflowBundleError, bundleWorkflows, quietRuntime } from './replay-worker.js';
import { stateDir } from '../host/state-dir.js';

const forkReplayPath = fileURLToPath(
  new URL(
    import.meta.url.endsWith('.ts') ? '../workflows/fork-replay.ts' : '../workflows/fork-replay.js',
    import.meta.url,
  ),
);

/** The run's history cannot give the state: the code does not replay it, or the bundle could not be built. */
export class ForkStateError extends Error {
  override name = 'ForkStateError';
}

/** The input and state after `step` as `history` (one run of a task) records them; undefined when it never got there. */
export async function stateAfterStep(
  history: History,
  workflowId: string,
  step: number,
): Promise<StepSnapshot | undefined> {
  quietRuntime();
  let workflowBundle;
  try {
    workflowBundle = await bundleWorkflows(forkReplayPath);
  } catch (error) {
    if (!(error instanceof WorkflowBundleError)) throw error;
    throw new ForkStateError('the workflow code could not be bundled', { cause: error });
  }
  let found: string | undefined;
  const sinks: InjectedSinks<ForkSinks> = {
    fork: {
      stateAfterStep: {
        fn: (_info, after, snapshot) => {
          found ??= after === step ? snapshot : undefined;
        },
        callDuringReplay: true,
      },
    },
  };
  // Payloads Temporal External Storage kept out of history are read back from the store the workers use.
  const dataConverter = dataConverterFromEnv(storeFromEnv(process.env, { stateDir: stateDir() }), process.env);
  try {
    await Worker.runReplayHistory({ workflowBundle, dataConverter, sinks }, history, workflowId);
  } catch (error) {
    if (!(error instanceof DeterminismViolationError || error instanceof ReplayError)) throw error;
    throw new ForkStateError(
      `this installation's workflow code does not replay the run (recorded with other code): ${error.message}`,
    );
  }
  return found === undefined ? undefined : (JSON.parse(found) as StepSnapshot);
}
