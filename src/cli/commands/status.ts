import { parseArgs } from 'node:util';
import { WorkflowNotFoundError } from '@temporalio/client';
import type { Config } from '../../config.js';
import { emptyUsage } from '../../core/state.js';
import type { agentWorkflow } from '../../workflows/agent.js';
import type { AgentStateView } from '../../workflows/messages.js';
import { stateQuery } from '../../workflows/messages.js';
import { connect, runUrl } from '../connect.js';
import { EXIT, UsageError } from '../exit-codes.js';
import { color, log } from '../output.js';
import { runStatusOf } from '../run-status.js';
import { storedText } from '../stored-text.js';

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
    // Both at once: the server answers the description itself, the query through a worker.
    const [description, view] = await Promise.all([
      handle.describe().catch((error: unknown) => {
        if (error instanceof WorkflowNotFoundError) return undefined;
        throw error;
      }),
      // No worker to answer the query: fall back to what the server knows.
      handle.query(stateQuery, Number.MAX_SAFE_INTEGER).catch((): AgentStateView | undefined => undefined),
    ]);
    if (!description) {
      log(color.red(`error: no run ${workflowId}`));
      return EXIT.failed;
    }
    const status = runStatusOf(description.status.name, view?.status);
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
      breakers: Object.fromEntries(
        Object.entries(view?.breakers ?? {}).map(([tool, breaker]) => [tool, breaker.state]),
      ),
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
            (approval) =>
              `  ${color.yellow('approval')}    ${approval.callId}  ${approval.tool} ${approval.command ?? approval.path ?? ''}  (${approval.level}: ${approval.reason})`,
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
