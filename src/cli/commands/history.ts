// Node: `history`: a run step by step from its event history (src/history reads it; this prints it).
import type { Client } from '@temporalio/client';
import type { Config } from '../../config.js';
import type { ToolSelectionRecord } from '../../protocol/model.js';
import type { RunHistory, SubAgentCall, ToolCallRecord } from '../../history/history-reader.js';
import { forkOriginOf } from '../../history/history-reader.js';
import { nestSubAgents, readTask } from '../../history/run-tree.js';
import { connect } from '../connect.js';
import { EXIT, UsageError } from '../exit-codes.js';
import { visibleText } from '../../core/terminal-text.js';
import { out, outJson } from '../output.js';
import { stdoutColor } from '../stdout-color.js';
import { parseCommandLine } from '../option-table.js';
import { historyOptions } from '../options/runs.js';

/** `history ID [--run-id R] [--depth N] [--json]`: the run step by step, read from its event history. */
export async function historyCommand(argv: string[], config: Config): Promise<number> {
  const { values, positionals } = parseCommandLine(historyOptions, argv);
  const workflowId = positionals[0];
  if (!workflowId || positionals.length > 1) throw new UsageError('history needs a run id: durable-agent history ID');
  const depth = values.depth === undefined ? Number.POSITIVE_INFINITY : Number(values.depth);
  if (depth !== Number.POSITIVE_INFINITY && !(Number.isInteger(depth) && depth >= 0))
    throw new UsageError(`--depth must be a whole number of levels (0: this run only), got "${values.depth}"`);
  const connected = await connect(config, { needWorker: false });
  try {
    const run: RunHistory = await readTask(connected.client, workflowId, values['run-id']);
    await nestSubAgents(connected.client, run, depth);
    const forks = await forksOf(connected.client, workflowId);
    if (forks.length > 0) run.forks = forks;
    if (values.json) outJson(run);
    else out(formatHistory(run));
    return EXIT.finished;
  } finally {
    await connected.close();
  }
}

/** The runs `durable-agent fork` started from this task: their ids extend its id, their memo names it. */
async function forksOf(client: Client, workflowId: string): Promise<{ workflowId: string; step: number }[]> {
  if (/['"\\]/.test(workflowId)) return [];
  const forks = new Map<string, number>();
  const query = `WorkflowType = 'agentWorkflow' AND WorkflowId STARTS_WITH '${workflowId}-fork-'`;
  for await (const execution of client.workflow.list({ query })) {
    const origin = forkOriginOf(execution.memo?.forkedFrom);
    if (origin?.workflowId === workflowId) forks.set(execution.workflowId, origin.step);
  }
  return [...forks].map(([fork, step]) => ({ workflowId: fork, step }));
}

function formatMs(ms: number | null): string {
  if (ms === null) return '…';
  return ms >= 1000 ? `${(ms / 1000).toFixed(1)}s` : `${ms}ms`;
}

function attemptsNote(attempts: number): string {
  return attempts > 1 ? stdoutColor.yellow(` (${attempts} attempts)`) : '';
}

function classificationNote(tool: ToolCallRecord): string {
  const classification = tool.classification;
  return classification
    ? stdoutColor.dim(`  ${visibleText(classification.level)}: ${visibleText(classification.rule)}`)
    : '';
}

/** A step whose calls changed files says how many (`diff ID --step N` shows them); one that changed none says nothing. */
function filesNote(calls: readonly ToolCallRecord[]): string {
  const changes = { added: 0, modified: 0, deleted: 0 };
  for (const call of calls) {
    const counts = call.checkpoint?.changes;
    if (!counts) continue;
    changes.added += counts.added;
    changes.modified += counts.modified;
    changes.deleted += counts.deleted;
  }
  const total = changes.added + changes.modified + changes.deleted;
  if (total === 0) return '';
  const parts = [`+${changes.added}`, `~${changes.modified}`, `-${changes.deleted}`].join(' ');
  return stdoutColor.yellow(`  ${total} file${total === 1 ? '' : 's'} changed (${parts})`);
}

function toolStatus(tool: ToolCallRecord): string {
  const text = visibleText(tool.errorCode ? `${tool.status} ${tool.errorCode}` : tool.status);
  if (tool.status === 'success') return stdoutColor.green(text);
  if (tool.status === 'partial' || tool.status === 'running' || tool.status === 'waiting_approval')
    return stdoutColor.yellow(text);
  if (tool.status === 'error') return stdoutColor.red(text);
  return stdoutColor.dim(text);
}

/** A step's selected tools, in the order of why they are there: `tools: 16 of 212 — ToolSearch, ReadFile, …`. */
export function selectionLine(selection: ToolSelectionRecord): string {
  // An MCP server names its own tools.
  const names = [
    ...selection.pinned,
    ...selection.discovered,
    ...selection.recent,
    ...selection.ranked,
    ...selection.filled,
  ].map((name) => visibleText(name));
  const list = names.join(', ');
  const shown = list.length > 160 ? `${list.slice(0, 159)}…` : list;
  return `tools: ${names.length} of ${selection.candidates} — ${shown}`;
}

/** A Task call's sub-agent under its line: its own history, indented, or its id when it was not read. */
function subAgentLines(subAgent: SubAgentCall): string[] {
  if (!subAgent.history)
    return [stdoutColor.dim(`    ↳ ${visibleText(subAgent.workflowId)}  ${visibleText(subAgent.outcome)}`)];
  const nested = formatHistory(subAgent.history).trimEnd().split('\n');
  return nested.map((line, index) => `    ${index === 0 ? '↳ ' : '  '}${line}`);
}

/**
 * The human form: one line per model call, one indented line per tool call, retries and failures noted. What the
 * history holds came from the model, its tools and the server: each piece is shown on its one line, escaped.
 */
export function formatHistory(run: RunHistory): string {
  const shown = visibleText;
  const runs = run.runIds.length > 1 ? ` (${run.runIds.length} runs, continued as new)` : '';
  const status = run.terminationReason ? `${run.status}: ${shown(run.terminationReason)}` : run.status;
  const workflowId = shown(run.workflowId);
  const lines = [`${stdoutColor.bold(workflowId)}  ${status}  ${stdoutColor.dim(`run ${shown(run.runId)}${runs}`)}`];
  if (run.profile) lines.push(stdoutColor.dim(`profile ${shown(run.profile)}`));
  for (const waiting of run.waitingFor ?? []) lines.push(stdoutColor.yellow(`  waiting for ${shown(waiting)}`));
  const resetsAfter = (step: number) => (run.resets ?? []).filter((reset) => reset.afterStep === step);
  const resetLines = (step: number) =>
    resetsAfter(step).map((reset) =>
      stdoutColor.yellow(
        `↺ reset after step ${reset.afterStep}: ${shown(reset.reason)}  ${stdoutColor.dim(`(the steps it abandoned: history ${workflowId} --run-id ${shown(reset.baseRunId)})`)}`,
      ),
    );
  if (run.forkedFrom) {
    const { workflowId: origin, runId, step } = run.forkedFrom;
    lines.push(stdoutColor.dim(`forked from ${shown(origin)} after step ${step} (run ${shown(runId)})`));
  }
  for (const fork of run.forks ?? [])
    lines.push(stdoutColor.dim(`fork ${shown(fork.workflowId)} after step ${fork.step}`));
  lines.push(...resetLines(0));
  if (run.steps.length === 0) lines.push(stdoutColor.dim('  no model call yet'));
  const label = (tool: ToolCallRecord): string => {
    const text = tool.summary.startsWith(`${tool.tool} `)
      ? tool.summary.slice(tool.tool.length + 1)
      : tool.summary || `call ${tool.callId}`;
    // Escaped before it is cut: what is shown stays within the column, and a newline cannot start a line of its own.
    const single = shown(text).replace(/\s+/g, ' ');
    return single.length > 60 ? `${single.slice(0, 59)}…` : single;
  };
  const tools = run.steps.flatMap((step) => step.tools);
  const toolName = (tool: ToolCallRecord): string => shown(tool.tool);
  const toolWidth = Math.max(0, ...tools.map((tool) => toolName(tool).length));
  const labelWidth = Math.max(0, ...tools.map((tool) => label(tool).length));
  for (const { step, model, tools: calls, toolSelection: selection, request } of run.steps) {
    if (request) lines.push(stdoutColor.yellow(`» request ${request.n} at step ${step}: ${shown(request.text)}`));
    const tokens = `${model.promptTokens} → ${model.completionTokens} tokens`;
    lines.push(
      `${stdoutColor.bold(`step ${step}`)}  ${shown(model.model)}  ${tokens}  ${stdoutColor.dim(formatMs(model.durationMs))}${attemptsNote(model.attempts)}${filesNote(calls)}`,
    );
    for (const failure of model.failures) lines.push(stdoutColor.red(`    ! ${shown(failure)}`));
    if (selection) lines.push(stdoutColor.dim(`    ${selectionLine(selection)}`));
    for (const tool of calls) {
      lines.push(
        `  ${stdoutColor.cyan(toolName(tool).padEnd(toolWidth))}  ${label(tool).padEnd(labelWidth)}  ${toolStatus(tool)}  ${stdoutColor.dim(formatMs(tool.durationMs))}${attemptsNote(tool.attempts)}${classificationNote(tool)}`,
      );
      if (tool.subAgent) lines.push(...subAgentLines(tool.subAgent));
    }
    lines.push(...resetLines(step));
  }
  return `${lines.join('\n')}\n`;
}
