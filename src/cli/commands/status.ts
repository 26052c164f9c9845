// `status ID`: read through the embedded server's HTTP API when it can (no Temporal client loaded), over gRPC
// otherwise; both readings become one RunSnapshot, printed here. A closed run is read from its close event (the
// result the workflow returned), never by a query, which would make a worker replay its whole history.
import type { WorkflowExecutionStatusName } from '@temporalio/client';
import type { Config } from '../../config.js';
import type { AgentResult } from '../../protocol/run-report.js';
import type { AgentStateView } from '../../protocol/run-messages.js';
import { EXIT, UsageError } from '../exit-codes.js';
import type { HttpApi } from '../../dev-server/http-api.js';
import type * as httpApi from '../../dev-server/http-api.js';
import { terminalJson, visibleText } from '../../core/terminal-text.js';
import { color, log, out, outJson } from '../output.js';
import { runUrl } from '../run-url.js';
import { runStatusOf } from '../../history/run-status.js';
import { parseCommandLine } from '../option-table.js';
import { statusOptions } from '../options/runs.js';
import type { ChildRow, ListedChild, ParentRow } from '../sub-agent-lines.js';
import {
  childLines,
  childRowOf,
  childRowsFromListing,
  childrenQuery,
  parentLines,
  parentRowFromIds,
  parentRowOf,
  usageLines,
} from '../sub-agent-lines.js';

/** What `status` prints about a run, however it was read. */
export interface RunSnapshot {
  runId: string;
  execution: WorkflowExecutionStatusName;
  /** An open run's live state, when a worker answered the query. */
  view?: AgentStateView;
  /** A closed run's result: what it returned, or the details of its AgentRunFailed failure. */
  result?: AgentResult;
  /** The AgentStep search attribute: the step a closed run without a result last reported. */
  reportedStep?: number;
  /** Why a terminated run was terminated. */
  terminationReason?: string;
  /** The run a run that continued as new handed its task on to. */
  nextRunId?: string;
  /** A closed run's sub-agents, as the visibility store lists them (an open run's are in its view). */
  children?: ChildRow[];
  /** A closed sub-agent's place in its tree, from the server's record of its parent and root. */
  parent?: ParentRow;
}

function workflowIdOf(argv: string[]): { workflowId: string; runId?: string; json: boolean } {
  const { values, positionals } = parseCommandLine(statusOptions, argv);
  const workflowId = positionals[0];
  if (!workflowId || positionals.length > 1) throw new UsageError('status needs a run id: durable-agent status ID');
  return { workflowId, json: values.json, ...(values['run-id'] ? { runId: values['run-id'] } : {}) };
}

/** Whether the execution status is one of a run that is over (a run that continued as new included). */
function isClosed(execution: WorkflowExecutionStatusName): boolean {
  return execution !== 'RUNNING';
}

/**
 * `status` through the embedded server's HTTP API; undefined when it cannot answer (another server, no recorded API,
 * a payload only the data converter reads, an open run without a worker to answer the query), so `statusCommand` does.
 */
export async function statusFast(argv: string[], env: NodeJS.ProcessEnv): Promise<number | undefined> {
  const { workflowId, runId, json } = workflowIdOf(argv);
  // One run of a chain by its id is the gRPC path's.
  if (runId) return undefined;
  const http = await import('../../dev-server/http-api.js');
  const api = await http.embeddedHttpApi(env);
  if (!api) return undefined;
  try {
    const snapshot = await readOverHttp(http, api, workflowId);
    if (snapshot === 'ask-over-grpc') return undefined;
    return await print(workflowId, undefined, snapshot, { uiUrl: api.uiUrl, namespace: api.namespace }, json);
  } catch (error) {
    if (error instanceof http.HttpApiUnavailable) return undefined;
    throw error;
  }
}

async function readOverHttp(
  http: typeof httpApi,
  api: HttpApi,
  workflowId: string,
): Promise<RunSnapshot | undefined | 'ask-over-grpc'> {
  const description = await http.describeExecution(api, workflowId);
  if (!description) return undefined;
  const { runId, status: execution } = description;
  if (isClosed(execution)) {
    const closed = await http.closeEvent(api, workflowId, runId);
    const step = description.searchAttributes.AgentStep;
    const query = childrenQuery(workflowId);
    const children = query
      ? childRowsFromListing(
          workflowId,
          (await http.listExecutions(api, query, 1000)).map((child): ListedChild => ({
            workflowId: child.workflowId,
            status: runStatusOf(child.status, child.searchAttributes.AgentStatus),
            startTime: Date.parse(child.startTime),
            open: !isClosed(child.status),
            step: child.searchAttributes.AgentStep,
            costUsd: child.searchAttributes.AgentCostUsd,
            pendingApprovals: child.searchAttributes.AgentPendingApprovals,
            task: child.memo.task,
          })),
        )
      : [];
    return {
      runId,
      execution,
      ...(children.length > 0 ? { children } : {}),
      ...(isAgentResult(closed?.value) ? { result: closed.value } : {}),
      ...(closed?.terminationReason ? { terminationReason: closed.terminationReason } : {}),
      ...(typeof step === 'number' ? { reportedStep: step } : {}),
    };
  }
  // A query needs a worker; starting one is the gRPC path's business.
  if (!(await api.workerReady())) return 'ask-over-grpc';
  const view = await http.queryWorkflow(api, workflowId, runId, http.STATE_QUERY, [Number.MAX_SAFE_INTEGER]);
  return { runId, execution, ...(view ? { view: view as AgentStateView } : {}) };
}

/** A terminated run's error line: the reason the operator gave. */
function terminationError(snapshot: RunSnapshot): string | undefined {
  if (snapshot.execution !== 'TERMINATED') return undefined;
  return snapshot.terminationReason ? `terminated: ${snapshot.terminationReason}` : 'terminated';
}

function isAgentResult(value: unknown): value is AgentResult {
  return typeof value === 'object' && value !== null && 'status' in value && 'steps' in value;
}

/** `status ID [--json]` over gRPC: TEMPORAL_ADDRESS, or the embedded server when its HTTP API cannot answer. */
export async function statusCommand(argv: string[], config: Config): Promise<number> {
  const { workflowId, runId: requestedRunId, json } = workflowIdOf(argv);
  const [
    { ApplicationFailure, TerminatedFailure, WorkflowContinuedAsNewError, WorkflowFailedError, WorkflowNotFoundError },
    { connect },
    { stateQuery },
    { AGENT_SEARCH_ATTRIBUTES },
  ] = await Promise.all([
    import('@temporalio/client'),
    import('../connect.js'),
    import('../../protocol/run-messages.js'),
    import('../../protocol/search-attributes.js'),
  ]);
  const connected = await connect(config, { needWorker: true });
  try {
    const requested = connected.client.workflow.getHandle(workflowId, requestedRunId);
    const description = await requested.describe().catch((error: unknown) => {
      if (error instanceof WorkflowNotFoundError) return undefined;
      throw error;
    });
    if (!description) return await print(workflowId, requestedRunId, undefined, connected, json);
    const { runId } = description;
    const snapshot: RunSnapshot = { runId, execution: description.status.name };
    if (isClosed(snapshot.execution)) {
      const step = description.typedSearchAttributes.get(AGENT_SEARCH_ATTRIBUTES.step);
      if (step !== undefined) snapshot.reportedStep = step;
      // The close event, decoded by the data converter: a result in the content store is read back from there.
      const handle = connected.client.workflow.getHandle(workflowId, runId, { followRuns: false });
      const result: unknown = await handle.result().catch((error: unknown): unknown => {
        if (error instanceof WorkflowContinuedAsNewError) snapshot.nextRunId = error.newExecutionRunId;
        const cause = error instanceof WorkflowFailedError ? error.cause : undefined;
        if (cause instanceof TerminatedFailure && cause.message) snapshot.terminationReason = cause.message;
        if (cause instanceof ApplicationFailure && cause.type === 'AgentRunFailed') return cause.details?.[0];
        return undefined;
      });
      if (isAgentResult(result)) snapshot.result = result;
      const { parentExecution, rootExecution } = description;
      if (parentExecution?.workflowId && rootExecution?.workflowId)
        snapshot.parent = parentRowFromIds(workflowId, parentExecution.workflowId, rootExecution.workflowId);
      const query = childrenQuery(workflowId);
      const listed: ListedChild[] = [];
      if (query)
        for await (const child of connected.client.workflow.list({ query })) {
          const attributes = child.typedSearchAttributes;
          listed.push({
            workflowId: child.workflowId,
            status: runStatusOf(child.status.name, attributes.get(AGENT_SEARCH_ATTRIBUTES.status)),
            startTime: child.startTime.getTime(),
            open: !isClosed(child.status.name),
            step: attributes.get(AGENT_SEARCH_ATTRIBUTES.step),
            costUsd: attributes.get(AGENT_SEARCH_ATTRIBUTES.costUsd),
            pendingApprovals: attributes.get(AGENT_SEARCH_ATTRIBUTES.pendingApprovals),
            task: child.memo?.task,
          });
        }
      const children = childRowsFromListing(workflowId, listed);
      if (children.length > 0) snapshot.children = children;
    } else {
      // No worker to answer the query: fall back to what the server knows.
      const view = await connected.client.workflow
        .getHandle(workflowId, runId)
        .query(stateQuery, Number.MAX_SAFE_INTEGER)
        .catch((): AgentStateView | undefined => undefined);
      if (view) snapshot.view = view;
    }
    return await print(workflowId, requestedRunId, snapshot, connected, json);
  } finally {
    await connected.close();
  }
}

async function print(
  workflowId: string,
  requestedRunId: string | undefined,
  snapshot: RunSnapshot | undefined,
  where: { uiUrl?: string; namespace: string },
  json: boolean,
): Promise<number> {
  if (!snapshot) {
    log(color.red(visibleText(`error: no run ${workflowId}${requestedRunId ? ` with run id ${requestedRunId}` : ''}`)));
    return EXIT.usage;
  }
  const { view, result } = snapshot;
  const status = runStatusOf(snapshot.execution, view?.status ?? result?.status);
  const answer = view ? view.answer : result?.answer;
  const error = view ? view.error : (result?.error ?? terminationError(snapshot));
  const profile = view?.profile?.name ?? result?.profile;
  const children = view?.children?.map(childRowOf) ?? snapshot.children ?? [];
  const parent = view?.parent ? parentRowOf(view.parent) : snapshot.parent;
  const treeUsage = view?.totalUsage ?? result?.totalUsage;
  const object = {
    workflowId,
    runId: snapshot.runId,
    status,
    step: view?.step ?? result?.steps ?? snapshot.reportedStep ?? 0,
    ...(profile ? { profile } : {}),
    // A long answer travels as a reference to the content store; the store's code loads only then.
    ...(answer ? { answer: await (await import('../stored-text.js')).storedText(answer) } : {}),
    ...(result?.result !== undefined ? { result: result.result } : {}),
    ...(error ? { error } : {}),
    ...(snapshot.nextRunId ? { continuedAs: snapshot.nextRunId } : {}),
    pendingApprovals: (view?.pendingApprovals ?? []).map(({ callId, tool, level, reason, command, path, key }) => ({
      callId,
      tool,
      level,
      reason,
      ...(command !== undefined ? { command } : {}),
      ...(path !== undefined ? { path } : {}),
      ...(key !== undefined ? { key } : {}),
    })),
    ...(view?.refusedDecisions ? { refusedDecisions: view.refusedDecisions } : {}),
    breakers: Object.fromEntries(Object.entries(view?.breakers ?? {}).map(([tool, breaker]) => [tool, breaker.state])),
    usage: view?.usage ?? result?.usage ?? (await import('../../core/state.js')).emptyUsage(),
    ...(treeUsage ? { totalUsage: treeUsage } : {}),
    ...(parent ? { parent } : {}),
    children,
  };
  if (json) outJson(object);
  else {
    const link = runUrl(where, workflowId, snapshot.runId);
    // Everything below but the counts came from the run, its model, its tools or the server: one line each.
    const shown = visibleText;
    out(
      [
        `${color.bold(shown(workflowId))}  ${status}`,
        `  step        ${object.step}${view ? ` of ${view.maxSteps}` : ''}`,
        `  tool calls  ${view?.toolCalls ?? result?.toolCalls ?? 0}`,
        ...usageLines(object.usage, treeUsage),
        ...(parent ? parentLines(parent) : []),
        ...(profile
          ? [`  profile     ${shown(profile)}${view?.profile ? `  (${shown(view.profile.reason)})` : ''}`]
          : []),
        ...(view?.lastTool ? [`  last tool   ${shown(view.lastTool)}`] : []),
        ...object.pendingApprovals.map(
          (approval) =>
            `  ${color.yellow('approval')}    ${shown(approval.callId)}  ${shown(approval.tool)} ${shown(approval.command ?? approval.path ?? '')}  (${shown(approval.level)}: ${shown(approval.reason)})`,
        ),
        ...childLines(children),
        ...(object.refusedDecisions ?? []).map((refused) => `  ${color.red('refused')}     ${refused}`),
        ...Object.entries(object.breakers)
          .filter(([, state]) => state !== 'CLOSED')
          .map(([tool, state]) => `  ${color.red('breaker')}     ${shown(tool)} ${shown(state)}`),
        ...(object.answer ? [`  answer      ${shown(object.answer.split('\n')[0]!)}`] : []),
        ...('result' in object ? [`  result      ${terminalJson(object.result)}`] : []),
        ...(object.error ? [`  error       ${shown(object.error)}`] : []),
        ...(object.continuedAs
          ? [`  continued   as run ${shown(object.continuedAs)} (durable-agent status ${shown(workflowId)})`]
          : []),
        ...(link ? [`  ui          ${shown(link)}`] : []),
      ].join('\n') + '\n',
    );
  }
  return EXIT.finished;
}
