// Node: `watch`: follows a run live to its end; Ctrl-C stops watching, the run goes on.
import type { Config } from '../../config.js';
import type { agentWorkflow } from '../../workflows/agent.js';
import { connect, runUrl } from '../connect.js';
import { EXIT, UsageError } from '../exit-codes.js';
import { DetachedError, followRun } from '../follow.js';
import { handleReader } from '../handle-reader.js';
import { followLiveOutput, wantsLiveOutput } from '../live-output.js';
import { visibleText } from '../../core/terminal-text.js';
import { color, log, outJson, printRunEnd } from '../output.js';
import { parseCommandLine } from '../option-table.js';
import { watchOptions } from '../options/runs.js';

/** `watch ID`: follow a run that is already going. */
export async function watchCommand(argv: string[], config: Config): Promise<number> {
  const { values, positionals } = parseCommandLine(watchOptions, argv);
  const workflowId = positionals[0];
  if (!workflowId) throw new UsageError('watch needs a run id: durable-agent watch ID');
  const stream = wantsLiveOutput(values);
  const connected = await connect(config, { needWorker: true });
  const abort = new AbortController();
  const onInterrupt = (): void => abort.abort();
  process.once('SIGINT', onInterrupt);
  try {
    const handle = connected.client.workflow.getHandle<typeof agentWorkflow>(workflowId);
    const { runId } = await handle.describe();
    const link = runUrl(connected, workflowId, runId);
    log(`${color.bold('watch')} ${visibleText(workflowId)}${link ? `  ${color.dim(visibleText(link))}` : ''}`);
    connected.keepWorkerAlive();
    // Attached mid-call, the call under way is shown from its start.
    const live = await followLiveOutput(stream, workflowId, { from: 'current', json: values.json });
    const { result, exitCode } = await followRun(workflowId, handleReader(handle), {
      signal: abort.signal,
      ...(live ? { live } : {}),
    });
    if (values.json) outJson({ workflowId, runId, ...result });
    else printRunEnd(result, link);
    return exitCode;
  } catch (error) {
    if (error instanceof DetachedError) {
      log('\nstopped watching; the run goes on.');
      return EXIT.detached;
    }
    throw error;
  } finally {
    process.off('SIGINT', onInterrupt);
    await connected.close();
  }
}
