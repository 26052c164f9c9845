// Node: what replaying a recorded run in this process needs: a quiet runtime and a workflow bundle.
import { DefaultLogger, Runtime, bundleWorkflowCode } from '@temporalio/worker';
import type { WorkflowBundle } from '@temporalio/worker';

// The replay worker's native logs would repeat the determinism failure as a warning; the command reports it itself.
export function quietRuntime(): void {
  try {
    Runtime.install({
      logger: new DefaultLogger('ERROR'),
      telemetryOptions: { logging: { filter: { core: 'ERROR', other: 'ERROR' } } },
    });
  } catch {
    // Already installed (the CLI used as a library): keep that runtime.
  }
}

/** The workflows could not be bundled: why, and the bundler's own error lines for the command to print. */
export class WorkflowBundleError extends Error {
  override name = 'WorkflowBundleError';
  constructor(
    readonly entry: string,
    message: string,
    readonly bundlerErrors: readonly string[],
  ) {
    super(message);
  }
}

/** The workflows of `entry` bundled; a WorkflowBundleError when they cannot be. */
export async function bundleWorkflows(entry: string): Promise<WorkflowBundle> {
  const errors: string[] = [];
  const ignore = (): void => undefined;
  try {
    return await bundleWorkflowCode({
      workflowsPath: entry,
      logger: {
        log: ignore,
        trace: ignore,
        debug: ignore,
        info: ignore,
        warn: ignore,
        error: (message: string) => errors.push(message),
      },
    });
  } catch (error) {
    throw new WorkflowBundleError(entry, (error as Error).message, errors);
  }
}
