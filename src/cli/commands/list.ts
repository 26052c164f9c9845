// `list`: agent runs from the visibility store, through the embedded server's HTTP API when it can (no Temporal client
// loaded), over gRPC otherwise; both readings become the same rows, printed here.
import type { WorkflowExecutionInfo, WorkflowExecutionStatusName } from '@temporalio/client';
import type { Config } from '../../config.js';
import type { RunStatus } from '../../protocol/run-report.js';
import { EXIT, UsageError } from '../exit-codes.js';
import type { HttpExecution } from '../../dev-server/http-api.js';
import { visibleText } from '../../core/terminal-text.js';
import { color, costCell, log, out, outJson } from '../output.js';
import { runStatusOf, visibilityClause } from '../../history/run-status.js';
import { stdoutColor } from '../stdout-color.js';
import { parseCommandLine } from '../option-table.js';
import { listOptions } from '../options/runs.js';
import { pathUnder } from '../../protocol/sub-agent-ids.js';

/** Filters of `list`. */
export interface ListFilters {
  status?: RunStatus;
  pendingApprovals?: boolean;
  minCostUsd?: number;
}

/** One run as `list --json` prints it; null where the run has not reported the value (yet). */
export interface RunRow {
  workflowId: string;
  runId: string;
  status: RunStatus;
  step: number | null;
  costUsd: number | null;
  pendingApprovals: number | null;
  startTime: string;
  closeTime: string | null;
  task: string | null;
  /** A sub-agent's parent run (null for a run an operator started). */
  parentWorkflowId: string | null;
}

/** The visibility query selecting agent runs that match the filters. */
export function listQuery(filters: ListFilters): string {
  const clauses = [`WorkflowType = 'agentWorkflow'`];
  if (filters.status) clauses.push(visibilityClause(filters.status));
  if (filters.pendingApprovals) clauses.push('AgentPendingApprovals > 0');
  if (filters.minCostUsd !== undefined) clauses.push(`AgentCostUsd >= ${filters.minCostUsd}`);
  return clauses.join(' AND ');
}

/** A listed execution as either reading gives it: the Agent* search attributes and the memo's task, undecided. */
export interface ListedExecution {
  workflowId: string;
  runId: string;
  execution: WorkflowExecutionStatusName;
  startTime: Date;
  closeTime?: Date;
  reported: { status?: unknown; step?: unknown; costUsd?: unknown; pendingApprovals?: unknown };
  task?: unknown;
  parentWorkflowId?: string;
}

/**
 * One row per task: its current run. A task's earlier runs — those it continued as new from, a run an operator reset —
 * are listed too; each is replaced by the task's current run (`latest`, as the server describes the workflow id),
 * which stands in its row only when it matches the filters too (it was listed) or when nothing was filtered.
 * `--status continued` asks for the handed-over runs themselves, so it keeps them.
 */
export async function oneRowPerTask(
  listed: ListedExecution[],
  options: { filtered: boolean; status?: RunStatus },
  latest: (workflowId: string) => Promise<ListedExecution | undefined>,
): Promise<ListedExecution[]> {
  if (options.status === 'continued') return listed;
  const byWorkflow = new Map<string, ListedExecution[]>();
  for (const execution of listed)
    byWorkflow.set(execution.workflowId, [...(byWorkflow.get(execution.workflowId) ?? []), execution]);
  const current = await Promise.all(
    [...byWorkflow.entries()].map(async ([workflowId, executions]) => {
      // Only one run of a workflow id is open at a time, and it is the current one.
      const open = executions.find((execution) => execution.execution === 'RUNNING');
      const now = open ?? (await latest(workflowId));
      if (!now) return undefined;
      const listedNow = executions.find((execution) => execution.runId === now.runId);
      if (listedNow) return listedNow;
      return options.filtered ? undefined : now;
    }),
  );
  return current.filter((execution): execution is ListedExecution => execution !== undefined);
}

/** A listed execution as a row: search attributes for what the workflow reports, the memo for the task text. */
export function toRunRow(listed: ListedExecution): RunRow {
  const numberOrNull = (value: unknown) => (typeof value === 'number' ? value : null);
  return {
    workflowId: listed.workflowId,
    runId: listed.runId,
    status: runStatusOf(listed.execution, listed.reported.status),
    step: numberOrNull(listed.reported.step),
    costUsd: numberOrNull(listed.reported.costUsd),
    pendingApprovals: numberOrNull(listed.reported.pendingApprovals),
    startTime: listed.startTime.toISOString(),
    closeTime: listed.closeTime?.toISOString() ?? null,
    task: typeof listed.task === 'string' ? listed.task : null,
    parentWorkflowId: listed.parentWorkflowId ?? null,
  };
}

/** An execution the HTTP API listed; the names are those of AGENT_SEARCH_ATTRIBUTES (workflows/search-attributes.ts). */
export function listedOverHttp(execution: HttpExecution): ListedExecution {
  const attributes = execution.searchAttributes;
  return {
    workflowId: execution.workflowId,
    runId: execution.runId,
    execution: execution.status,
    startTime: new Date(execution.startTime),
    ...(execution.closeTime ? { closeTime: new Date(execution.closeTime) } : {}),
    reported: {
      status: attributes.AgentStatus,
      step: attributes.AgentStep,
      costUsd: attributes.AgentCostUsd,
      pendingApprovals: attributes.AgentPendingApprovals,
    },
    task: execution.memo.task,
    ...(execution.parentWorkflowId ? { parentWorkflowId: execution.parentWorkflowId } : {}),
  };
}

/** The visibility query for one workflow id's runs (an id with a quote in it cannot be one: the server refuses it). */
function workflowIdQuery(workflowId: string): string {
  if (/['\\]/.test(workflowId)) throw new UsageError(`a workflow id with a quote: ${visibleText(workflowId)}`);
  return `WorkflowId = '${workflowId}'`;
}

/** The current run among one workflow id's listed runs: the open one, else the one started last. */
function latestListed(executions: HttpExecution[]): ListedExecution | undefined {
  const sorted = [...executions].sort((left, right) => left.startTime.localeCompare(right.startTime));
  const current = sorted.find((execution) => execution.status === 'RUNNING') ?? sorted.at(-1);
  return current && listedOverHttp(current);
}

interface ListOptions {
  query: string;
  limit: number;
  json: boolean;
  filtered: boolean;
  status?: RunStatus;
}

function listOptionsOf(argv: string[]): ListOptions {
  const { values, positionals } = parseCommandLine(listOptions, argv);
  if (positionals.length) throw new UsageError(`list takes no arguments, got "${positionals.join(' ')}"`);
  // Its choices are checked by the option table, which also takes `waiting-approval` and `timed-out`.
  const status = values.status === undefined ? undefined : (values.status.replace(/-/g, '_') as RunStatus);
  const minCost = values['min-cost'] === undefined ? undefined : Number(values['min-cost']);
  if (minCost !== undefined && !(Number.isFinite(minCost) && minCost >= 0))
    throw new UsageError(`--min-cost must be a number of US dollars, got "${values['min-cost']}"`);
  const limit = Number(values.limit);
  if (!Number.isInteger(limit) || limit < 1)
    throw new UsageError(`--limit must be a positive integer, got "${values.limit}"`);

  const filters: ListFilters = {
    ...(status ? { status } : {}),
    ...(values['pending-approvals'] ? { pendingApprovals: true } : {}),
    ...(minCost !== undefined ? { minCostUsd: minCost } : {}),
  };
  return {
    query: listQuery(filters),
    limit,
    json: values.json,
    filtered: Object.keys(filters).length > 0,
    ...(status ? { status } : {}),
  };
}

/**
 * `list` through the embedded server's HTTP API; undefined when it cannot answer (another server, no recorded API,
 * a refused query, a payload only the data converter reads), so `listCommand` does.
 */
export async function listFast(argv: string[], env: NodeJS.ProcessEnv): Promise<number | undefined> {
  const options = listOptionsOf(argv);
  const http = await import('../../dev-server/http-api.js');
  const api = await http.embeddedHttpApi(env);
  if (!api) return undefined;
  let rows: RunRow[];
  try {
    const listed = (await http.listExecutions(api, options.query, options.limit)).map(listedOverHttp);
    const current = await oneRowPerTask(listed, options, async (workflowId) => {
      // A sub-agent's id has a slash, which the HTTP API has no path for; the visibility store knows its runs.
      if (workflowId.includes('/')) return latestListed(await http.listExecutions(api, workflowIdQuery(workflowId), 1));
      const execution = await http.describeExecution(api, workflowId);
      return execution && listedOverHttp(execution);
    });
    rows = current.map(toRunRow);
  } catch (error) {
    if (error instanceof http.HttpApiUnavailable) return undefined;
    throw error;
  }
  return printRows(rows, options.json);
}

/** `list [--status S] [--pending-approvals] [--min-cost USD] [--limit N] [--json]`: agent runs, newest first. */
export async function listCommand(argv: string[], config: Config): Promise<number> {
  const options = listOptionsOf(argv);
  const { query, limit } = options;
  const [{ ServiceError, WorkflowNotFoundError }, { connect }, { AGENT_SEARCH_ATTRIBUTES }] = await Promise.all([
    import('@temporalio/client'),
    import('../connect.js'),
    import('../../protocol/search-attributes.js'),
  ]);
  const listedOverGrpc = (execution: Omit<WorkflowExecutionInfo, 'raw'>): ListedExecution => {
    const attributes = execution.typedSearchAttributes;
    return {
      workflowId: execution.workflowId,
      runId: execution.runId,
      execution: execution.status.name,
      startTime: execution.startTime,
      ...(execution.closeTime ? { closeTime: execution.closeTime } : {}),
      reported: {
        status: attributes.get(AGENT_SEARCH_ATTRIBUTES.status),
        step: attributes.get(AGENT_SEARCH_ATTRIBUTES.step),
        costUsd: attributes.get(AGENT_SEARCH_ATTRIBUTES.costUsd),
        pendingApprovals: attributes.get(AGENT_SEARCH_ATTRIBUTES.pendingApprovals),
      },
      task: execution.memo?.task,
      ...(execution.parentExecution?.workflowId ? { parentWorkflowId: execution.parentExecution.workflowId } : {}),
    };
  };
  const connected = await connect(config, { needWorker: false });
  try {
    const listed: ListedExecution[] = [];
    // `limit` counts tasks: a task's earlier runs (continued as new, or reset) come on top of it.
    const workflows = new Set<string>();
    try {
      for await (const execution of connected.client.workflow.list({ query, pageSize: Math.min(limit, 1000) })) {
        if (!workflows.has(execution.workflowId) && workflows.size >= limit) break;
        workflows.add(execution.workflowId);
        listed.push(listedOverGrpc(execution));
      }
    } catch (error) {
      if (!(error instanceof ServiceError)) throw error;
      const cause = error.cause instanceof Error ? `: ${error.cause.message}` : '';
      log(color.red(visibleText(`error: the server refused the query ${query}${cause}`)));
      if (/search attribute|AgentStatus|AgentCostUsd|AgentPendingApprovals/i.test(cause))
        log(
          'The agent search attributes are registered by `durable-agent dev-server`; on a cluster, create them with `temporal operator search-attribute create`.',
        );
      return EXIT.failed;
    }
    const current = await oneRowPerTask(listed, options, async (workflowId) =>
      connected.client.workflow
        .getHandle(workflowId)
        .describe()
        .then(listedOverGrpc, (error: unknown) => {
          if (error instanceof WorkflowNotFoundError) return undefined;
          throw error;
        }),
    );
    return printRows(current.map(toRunRow), options.json);
  } finally {
    await connected.close();
  }
}

function printRows(rows: RunRow[], json: boolean): number {
  // Visibility stores without ORDER BY return open runs first, then by close time; newest start first reads better.
  rows.sort((left, right) => right.startTime.localeCompare(left.startTime));
  if (json) outJson(rows);
  else out(formatRows(rows, Date.now()));
  return EXIT.finished;
}

function statusPaint(status: RunStatus): (text: string) => string {
  switch (status) {
    case 'completed':
      return stdoutColor.green;
    case 'failed':
    case 'timed_out':
    case 'terminated':
      return stdoutColor.red;
    case 'waiting_approval':
    case 'paused':
      return stdoutColor.yellow;
    case 'waiting_input':
      return stdoutColor.green;
    case 'cancelled':
    case 'continued':
      return stdoutColor.dim;
    case 'running':
      return stdoutColor.cyan;
  }
}

/** How long ago, in the largest whole unit. */
export function age(fromMs: number, nowMs: number): string {
  const seconds = Math.max(0, Math.round((nowMs - fromMs) / 1000));
  if (seconds < 60) return `${seconds}s ago`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)}m ago`;
  if (seconds < 86_400) return `${Math.floor(seconds / 3600)}h ago`;
  return `${Math.floor(seconds / 86_400)}d ago`;
}

/** The first line of a task, escaped before it is cut to the column (a run's task is whatever its starter wrote). */
function firstLine(text: string | null, width: number): string {
  const line = visibleText((text ?? '').split('\n')[0]!).trim();
  return line.length > width ? `${line.slice(0, width - 1)}…` : line;
}

/** A row with how deep it is drawn under the listed run that started it (0: its parent is not listed). */
export interface TreeRow {
  row: RunRow;
  depth: number;
}

/**
 * Rows in the order they are read as trees: each run followed by the sub-agents it started (oldest first), each level
 * indented under its parent. A sub-agent whose parent is not listed (another filter, the limit) stands on its own.
 */
export function treeOrder(rows: RunRow[]): TreeRow[] {
  const listed = new Set(rows.map((row) => row.workflowId));
  const children = new Map<string, RunRow[]>();
  for (const row of rows)
    if (row.parentWorkflowId !== null && listed.has(row.parentWorkflowId))
      children.set(row.parentWorkflowId, [...(children.get(row.parentWorkflowId) ?? []), row]);
  const ordered: TreeRow[] = [];
  const visit = (row: RunRow, depth: number) => {
    ordered.push({ row, depth });
    const under = [...(children.get(row.workflowId) ?? [])].sort(
      (left, right) => left.startTime.localeCompare(right.startTime) || left.workflowId.localeCompare(right.workflowId),
    );
    for (const child of under) visit(child, depth + 1);
  };
  for (const row of rows) if (row.parentWorkflowId === null || !listed.has(row.parentWorkflowId)) visit(row, 0);
  return ordered;
}

/** The ID cell: a sub-agent under its listed parent by its segment (`└ task-1-0`), any other run by its id. */
function idCell({ row, depth }: TreeRow): string {
  if (depth === 0 || row.parentWorkflowId === null) return visibleText(row.workflowId);
  return `${'  '.repeat(depth - 1)} └ ${visibleText(pathUnder(row.workflowId, row.parentWorkflowId))}`;
}

/**
 * Rows aligned in columns, sub-agents under their parents (padding happens before colouring, so escape codes never
 * shift a column).
 */
export function formatRows(listed: RunRow[], nowMs: number): string {
  if (listed.length === 0) return 'no agent runs match\n';
  const tree = treeOrder(listed);
  const rows = tree.map(({ row }) => row);
  const header = ['ID', 'STATUS', 'STEP', 'COST', 'STARTED', 'TASK'];
  const cells = tree.map((entry) => {
    const { row } = entry;
    return [
      idCell(entry),
      row.status,
      row.step === null ? '-' : String(row.step),
      costCell(row.costUsd),
      age(Date.parse(row.startTime), nowMs),
      firstLine(row.task, 60),
    ];
  });
  const widths = header.map((title, column) => Math.max(title.length, ...cells.map((line) => line[column]!.length)));
  const render = (line: string[], paint: (column: number, text: string) => string): string =>
    line
      .map((cell, column) => paint(column, column === line.length - 1 ? cell : cell.padEnd(widths[column]!)))
      .join('  ')
      .trimEnd();
  const lines = [render(header, (_column, text) => stdoutColor.bold(text))];
  rows.forEach((row, index) => {
    lines.push(render(cells[index]!, (column, text) => (column === 1 ? statusPaint(row.status)(text) : text)));
  });
  return `${lines.join('\n')}\n`;
}
