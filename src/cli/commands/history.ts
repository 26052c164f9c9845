import { parseArgs } from 'node:util';
import { WorkflowNotFoundError } from '@temporalio/client';
import type { Config } from '../../config.js';
import type { Client } from '@temporalio/client';
import type { RunHistory, ToolCallRecord } from '../history-reader.js';
import { mergeRunHistories, readRunHistory, runChain } from '../history-reader.js';
import { connect } from '../connect.js';
import { EXIT, UsageError } from '../exit-codes.js';
import { color, log } from '../output.js';
import { stdoutColor } from '../stdout-color.js';

/** `history ID [--run-id R] [--json]`: the run step by step, read from its event history. */
export async function historyCommand(argv: string[], config: Config): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: { 'run-id': { type: 'string' }, json: { type: 'boolean', default: false } },
    allowPositionals: true,
  });
  const workflowId = positionals[0];
  if (!workflowId || positionals.length > 1) throw new UsageError('history needs a run id: durable-agent history ID');
  const connected = await connect(config, { needWorker: false });
  try {
    let run: RunHistory;
    try {
      run = await readTask(connected.client, workflowId, values['run-id']);
    } catch (error) {
      if (!(error instanceof WorkflowNotFoundError)) throw error;
      log(color.red(`error: no run ${workflowId}${values['run-id'] ? ` with run id ${values['run-id']}` : ''}`));
      return EXIT.usage;
    }
    process.stdout.write(values.json ? `${JSON.stringify(run)}\n` : formatHistory(run));
    return EXIT.finished;
  } finally {
    await connected.close();
  }
}

/** MAX_RUNS bounds the walk along a continue-as-new chain (a task continues every few steps at most). */
const MAX_RUNS = 1000;

/** One run when `runId` is given; otherwise the whole task, from its first run along the continue-as-new chain. */
async function readTask(client: Client, workflowId: string, runId: string | undefined): Promise<RunHistory> {
  const read = async (id: string | undefined) => {
    const handle = client.workflow.getHandle(workflowId, id);
    // describe first: it names a missing run clearly (WorkflowNotFoundError), fetchHistory only with a gRPC status.
    const description = await handle.describe();
    const history = await handle.fetchHistory();
    return { history, run: readRunHistory(history, { workflowId, runId: description.runId }) };
  };
  const latest = await read(runId);
  const { firstRunId } = runChain(latest.history);
  if (runId || !firstRunId || firstRunId === latest.run.runId) return latest.run;
  const runs: RunHistory[] = [];
  let next: string | undefined = firstRunId;
  while (next && next !== latest.run.runId && runs.length < MAX_RUNS) {
    const current = await read(next);
    runs.push(current.run);
    next = runChain(current.history).nextRunId;
  }
  return mergeRunHistories([...runs, latest.run]);
}

function formatMs(ms: number | null): string {
  if (ms === null) return '…';
  return ms >= 1000 ? `${(ms / 1000).toFixed(1)}s` : `${ms}ms`;
}

function attemptsNote(attempts: number): string {
  return attempts > 1 ? stdoutColor.yellow(` (${attempts} attempts)`) : '';
}

function classificationNote(tool: ToolCallRecord): string {
  return tool.classification ? stdoutColor.dim(`  ${tool.classification.level}: ${tool.classification.rule}`) : '';
}

function toolStatus(tool: ToolCallRecord): string {
  const text = tool.errorCode ? `${tool.status} ${tool.errorCode}` : tool.status;
  if (tool.status === 'success') return stdoutColor.green(text);
  if (tool.status === 'partial' || tool.status === 'running') return stdoutColor.yellow(text);
  if (tool.status === 'error') return stdoutColor.red(text);
  return stdoutColor.dim(text);
}

/** The human form: one line per model call, one indented line per tool call, retries and failures noted. */
export function formatHistory(run: RunHistory): string {
  const runs = run.runIds.length > 1 ? ` (${run.runIds.length} runs, continued as new)` : '';
  const status = run.terminationReason ? `${run.status}: ${run.terminationReason}` : run.status;
  const lines = [`${stdoutColor.bold(run.workflowId)}  ${status}  ${stdoutColor.dim(`run ${run.runId}${runs}`)}`];
  for (const waiting of run.waitingFor ?? []) lines.push(stdoutColor.yellow(`  waiting for ${waiting}`));
  if (run.steps.length === 0) lines.push(stdoutColor.dim('  no model call yet'));
  const label = (tool: ToolCallRecord): string => {
    const text = tool.summary.startsWith(`${tool.tool} `)
      ? tool.summary.slice(tool.tool.length + 1)
      : tool.summary || `call ${tool.callId}`;
    const single = text.replace(/\s+/g, ' ');
    return single.length > 60 ? `${single.slice(0, 59)}…` : single;
  };
  const tools = run.steps.flatMap((step) => step.tools);
  const toolWidth = Math.max(0, ...tools.map((tool) => tool.tool.length));
  const labelWidth = Math.max(0, ...tools.map((tool) => label(tool).length));
  for (const { step, model, tools: calls } of run.steps) {
    const tokens = `${model.promptTokens} → ${model.completionTokens} tokens`;
    lines.push(
      `${stdoutColor.bold(`step ${step}`)}  ${model.model}  ${tokens}  ${stdoutColor.dim(formatMs(model.durationMs))}${attemptsNote(model.attempts)}`,
    );
    for (const failure of model.failures) lines.push(stdoutColor.red(`    ! ${failure}`));
    for (const tool of calls) {
      lines.push(
        `  ${stdoutColor.cyan(tool.tool.padEnd(toolWidth))}  ${label(tool).padEnd(labelWidth)}  ${toolStatus(tool)}  ${stdoutColor.dim(formatMs(tool.durationMs))}${attemptsNote(tool.attempts)}${classificationNote(tool)}`,
      );
    }
  }
  return `${lines.join('\n')}\n`;
}
