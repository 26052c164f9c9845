// Node: `cancel`: asks a run to cancel and waits for it to close.
import { setTimeout as sleep } from 'node:timers/promises';
import { WorkflowNotFoundError } from '@temporalio/client';
import type { Config } from '../../config.js';
import type { agentWorkflow } from '../../workflows/agent.js';
import { connect } from '../connect.js';
import { EXIT, UsageError } from '../exit-codes.js';
import { visibleText } from '../../core/terminal-text.js';
import { color, log, out, outJson } from '../output.js';
import { stdoutColor } from '../stdout-color.js';
import { runStatusOf } from '../../history/run-status.js';
import { parseCommandLine } from '../option-table.js';
import { cancelOptions } from '../options/runs.js';

/** `cancel ID [--wait SECONDS] [--json]`: requests cancellation and waits (bounded) for the run to close. */
export async function cancelCommand(argv: string[], config: Config): Promise<number> {
  const { values, positionals } = parseCommandLine(cancelOptions, argv);
  const workflowId = positionals[0];
  if (!workflowId || positionals.length > 1) throw new UsageError('cancel needs a run id: durable-agent cancel ID');
  const waitSeconds = Number(values.wait);
  if (!Number.isFinite(waitSeconds) || waitSeconds < 0)
    throw new UsageError(`--wait must be a number of seconds, got "${values.wait}"`);

  // The workflow has to run to turn the request into a cancelled run, so a worker must be polling.
  const connected = await connect(config, { needWorker: true });
  try {
    const handle = connected.client.workflow.getHandle<typeof agentWorkflow>(workflowId);
    try {
      await handle.cancel();
    } catch (error) {
      if (error instanceof WorkflowNotFoundError) {
        log(color.red(`error: no run ${visibleText(workflowId)}`));
        return EXIT.usage;
      }
      throw error;
    }
    // Any ending will do: the run may finish its step, fail, or be cancelled; the result's error is not this command's.
    connected.keepWorkerAlive();
    const timer = new AbortController();
    const closed = await Promise.race([
      handle.result().then(
        () => true,
        () => true,
      ),
      sleep(waitSeconds * 1000, false, { signal: timer.signal }).catch(() => false),
    ]);
    timer.abort(); // a pending timer would keep the process alive after the answer
    const description = await handle.describe();
    const status = runStatusOf(description.status.name);
    const object = { workflowId, runId: description.runId, status };
    if (!closed && description.status.name === 'RUNNING') {
      if (values.json) outJson(object);
      log(
        color.red(
          `error: cancellation of ${workflowId} was requested but the run did not close within ${waitSeconds}s; ` +
            `it closes when a worker processes the request (or end it now with: temporal workflow terminate --workflow-id ${workflowId})`,
        ),
      );
      return EXIT.failed;
    }
    if (values.json) outJson(object);
    else {
      const note =
        status === 'cancelled'
          ? stdoutColor.yellow('cancelled')
          : `${status} (it ended before the cancellation took effect)`;
      out(`${visibleText(workflowId)}  ${note}\n`);
    }
    return EXIT.finished;
  } finally {
    await connected.close();
  }
}
