// What replaying a recorded run in this process needs: a quiet runtime and a workflow bundle.
import { DefaultLogger, Runtime, bundleWorkflowCode } from '@temporalio/worker';
import type { WorkflowBundle } from '@temporalio/worker';
import { visibleLines } from '../core/terminal-text.js';
import { color, log } from './output.js';

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

export async function bundleWorkflows(entry: string): Promise<WorkflowBundle | undefined> {
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
    log(color.red(`error: could not bundle the workflows in ${entry}: ${visibleLines((error as Error).message)}`));
    for (const message of errors) log(visibleLines(message));
    return undefined;
  }
}
