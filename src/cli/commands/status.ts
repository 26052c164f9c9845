import { parseArgs } from 'node:util';
import type { WorkflowExecutionStatusName } from '@temporalio/client';
import type { Config } from '../../config.js';
import type { RunStatus } from '../../core/state.js';
import { emptyUsage } from '../../core/state.js';
import type { agentWorkflow } from '../../workflows/agent.js';
import type { AgentStateView } from '../../workflows/messages.js';
import { stateQuery } from '../../workflows/messages.js';
import { connect, runUrl } from '../connect.js';
import { EXIT, UsageError } from '../exit-codes.js';
import { DetachedError, followRun } from '../follow.js';
import { color, log } from '../output.js';
import { storedText } from '../stored-text.js';

function statusFromExecution(name: WorkflowExecutionStatusName, live: RunStatus | undefined): RunStatus {
  switch (name) {
    case 'RUNNING':
      return live ?? 'running';
    case 'COMPLETED':
      return live === 'failed' ? 'failed' : 'completed';
    case 'CANCELLED':
    case 'TERMINATED':
      return 'cancelled';
    case 'CONTINUED_AS_NEW':
      return 'running';
    default:
      return 'failed';
  }
}

/** `status ID [--json]`. */
export async function statusCommand(argv: string[], config: Config): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: { json: { type: 'boolean', default: false } },
    allowPositionals: true,
  });
  const workflowId = positionals[0];
  if (!workflowId) throw new UsageError('status needs a run id: durable-agent status ID');
  const connected = await connect(config, { needWorker: true });
  try {
    const handle = connected.client.workflow.getHandle<typeof agentWorkflow>(workflowId);
    const description = await handle.describe();
    let view: AgentStateView | undefined;
    try {
      view = await handle.query(stateQuery, Number.MAX_SAFE_INTEGER);
    } catch {
      view = undefined; // no worker to answer the query; fall back to what the server knows
    }
    const status = statusFromExecution(description.status.name, view?.status);
    const object = {
      workflowId,
      runId: description.runId,
      status,
      step: view?.step ?? 0,
      ...(view?.answer ? { answer: await storedText(view.answer) } : {}),
      ...(view?.error ? { error: view.error } : {}),
      pendingApprovals: (view?.pendingApprovals ?? []).map(({ callId, tool, level, reason, command, path, key }) => ({
        callId,
        tool,
        level,
        reason,
        ...(command !== undefined ? { command } : {}),
        ...(path !== undefined ? { path } : {}),
        ...(key !== undefined ? { key } : {}),
      })),
      breakers: Object.fromEntries(Object.entries(view?.breakers ?? {}).map(([tool, breaker]) => [tool, breaker.state])),
      usage: view?.usage ?? emptyUsage(),
    };
    if (values.json) process.stdout.write(`${JSON.stringify(object)}\n`);
    else {
      const link = runUrl(connected, workflowId, description.runId);
      process.stdout.write(
        [
          `${color.bold(workflowId)}  ${status}`,
          `  step        ${object.step}${view ? ` of ${view.maxSteps}` : ''}`,
          `  tool calls  ${view?.toolCalls ?? 0}`,
          `  tokens      ${object.usage.totalTokens} (${object.usage.modelCalls} model calls)`,
          ...(view?.lastTool ? [`  last tool   ${view.lastTool}`] : []),
          ...object.pendingApprovals.map(
            (approval) => `  ${color.yellow('approval')}    ${approval.callId}  ${approval.tool} ${approval.command ?? approval.path ?? ''}  (${approval.level}: ${approval.reason})`,
          ),
          ...Object.entries(object.breakers)
            .filter(([, state]) => state !== 'CLOSED')
            .map(([tool, state]) => `  ${color.red('breaker')}     ${tool} ${state}`),
          ...(object.answer ? [`  answer      ${object.answer.split('\n')[0]}`] : []),
          ...(object.error ? [`  error       ${object.error}`] : []),
          ...(link ? [`  ui          ${link}`] : []),
        ].join('\n') + '\n',
      );
    }
    return EXIT.finished;
  } finally {
    await connected.close();
  }
}

/** `watch ID`: follow a run that is already going. */
export async function watchCommand(argv: string[], config: Config): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: { json: { type: 'boolean', default: false } },
    allowPositionals: true,
  });
  const workflowId = positionals[0];
  if (!workflowId) throw new UsageError('watch needs a run id: durable-agent watch ID');
  const connected = await connect(config, { needWorker: true });
  const abort = new AbortController();
  const onInterrupt = (): void => abort.abort();
  process.once('SIGINT', onInterrupt);
  try {
    const handle = connected.client.workflow.getHandle<typeof agentWorkflow>(workflowId);
    const { runId } = await handle.describe();
    const link = runUrl(connected, workflowId, runId);
    log(`${color.bold('watch')} ${workflowId}${link ? `  ${color.dim(link)}` : ''}`);
    const { result, exitCode } = await followRun(handle, { signal: abort.signal });
    if (values.json) process.stdout.write(`${JSON.stringify({ workflowId, runId, ...result })}\n`);
    else {
      if (result.answer) process.stdout.write(`${result.answer}\n`);
      if (result.error) log(color.red(`${result.status}: ${result.error}`));
    }
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
