// The embedded dev server's HTTP API (the frontend's JSON gateway), read with node:http: `status` and `list` answer through
// it without loading the Temporal client (half the time of a command that loads it). It answers only requests that
// name HTTP_API_HOST, which no browser can send. Only what this CLI can decode on its own is read here; anything else (a
// payload in the content store, another encoding, an unexpected answer) is an HttpApiUnavailable, and the command
// asks over gRPC instead.
import http from 'node:http';
import type { WorkflowExecutionStatusName } from '@temporalio/client';
import { HTTP_API_HOST } from './ports.js';
import { isOurProcess } from './processes.js';
import { readRecord } from './state-record.js';
import type { DirectoryEnvironment } from '../host/state-dir.js';
import { stateDir } from '../host/state-dir.js';
import { workerConfiguration } from './worker-environment.js';

/** The HTTP API cannot answer this; the command asks over gRPC. */
export class HttpApiUnavailable extends Error {
  override name = 'HttpApiUnavailable';
}

/** The agent workflow's `state` query (stateQuery in protocol/run-messages.ts), named without loading the workflow package. */
export const STATE_QUERY = 'state';

/** The embedded server's HTTP API, for one namespace. */
export interface HttpApi {
  url: string;
  namespace: string;
  /** The server's gRPC address, for what the HTTP API does not carry (a client following a run). */
  address: string;
  /** The namespace the server was started with (its agent search attributes are registered there). */
  serverNamespace: string;
  /** Base URL of the Web UI; empty when headless. */
  uiUrl: string;
  /** The codec endpoint the Web UI calls; empty when the UI has none. */
  codecUrl: string;
  /**
   * Whether the background worker runs with this environment's configuration (and, when given, this command line), so
   * a query gets an answer and a run started now is picked up.
   */
  workerReady(command?: readonly string[]): Promise<boolean>;
}

/** A payload as the gateway writes it without shorthand: base64 metadata values and data. */
interface JsonPayload {
  metadata?: Record<string, string>;
  data?: string;
}

/** One execution as DescribeWorkflowExecution and ListWorkflowExecutions describe it. */
export interface HttpExecution {
  workflowId: string;
  runId: string;
  status: WorkflowExecutionStatusName;
  startTime: string;
  closeTime?: string;
  /** Search attributes, decoded. */
  searchAttributes: Record<string, unknown>;
  /** Memo fields, decoded. */
  memo: Record<string, unknown>;
  /** A child workflow's parent's workflow id. */
  parentWorkflowId?: string;
}

/**
 * The embedded server's HTTP API when the command would talk to that server and it is running: no TEMPORAL_ADDRESS,
 * a record that names the API, the recorded process alive. Undefined otherwise.
 */
export async function embeddedHttpApi(env: DirectoryEnvironment): Promise<HttpApi | undefined> {
  if (env.TEMPORAL_ADDRESS) return undefined;
  const record = await readRecord(stateDir(env));
  const server = record.server;
  if (!server?.httpUrl || !(await isOurProcess(server))) return undefined;
  return {
    url: server.httpUrl,
    namespace: env.TEMPORAL_NAMESPACE || 'default',
    address: server.address,
    serverNamespace: server.namespace,
    uiUrl: server.uiUrl,
    codecUrl: server.codecUrl ?? '',
    workerReady: async (command) =>
      record.worker !== undefined &&
      record.worker.configuration === workerConfiguration(env) &&
      (command === undefined || record.worker.command.join('\0') === command.join('\0')) &&
      (await isOurProcess(record.worker)),
  };
}

const TIMEOUT_MS = 5_000;

/** How long a long poll of the close event may take: the server answers within its 20 s long-poll interval. */
const LONG_POLL_TIMEOUT_MS = 70_000;

interface ExchangeOptions {
  body?: string;
  timeoutMs?: number;
  signal?: AbortSignal;
}

/** One HTTP exchange: node:http, because the global fetch costs more to load than the whole command may take. */
function exchange(
  url: string,
  method: string,
  { body, timeoutMs = TIMEOUT_MS, signal }: ExchangeOptions = {},
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const request = http.request(
      url,
      {
        method,
        // One connection per request, closed after it: nothing pooled keeps the process alive.
        agent: false,
        // Payloads as the SDK stores them (base64), never re-encoded JSON, which loses what JSON cannot round-trip.
        headers: {
          // The only Host the server answers (see HTTP_API_HOST); the connection still goes to the recorded address.
          host: HTTP_API_HOST,
          accept: 'application/json+no-payload-shorthand',
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        timeout: timeoutMs,
        ...(signal ? { signal } : {}),
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          resolve({ status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }),
        );
        response.on('error', reject);
      },
    );
    request.on('timeout', () => request.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    request.on('error', reject);
    request.end(body);
  });
}

/** GET or POST one API path; undefined when the server answers "not found". */
async function call(
  api: HttpApi,
  path: string,
  body?: unknown,
  options: Omit<ExchangeOptions, 'body'> = {},
): Promise<Record<string, unknown> | undefined> {
  const url = `${api.url}/api/v1/namespaces/${encodeURIComponent(api.namespace)}${path}`;
  let answer: { status: number; text: string };
  try {
    answer = await exchange(url, body === undefined ? 'GET' : 'POST', {
      ...options,
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  } catch (error) {
    if (options.signal?.aborted) throw error;
    throw new HttpApiUnavailable(`${api.url}: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (answer.status === 404) return undefined;
  if (answer.status < 200 || answer.status >= 300)
    throw new HttpApiUnavailable(`${api.url}${path}: HTTP ${answer.status} ${answer.text.slice(0, 200)}`);
  try {
    return JSON.parse(answer.text) as Record<string, unknown>;
  } catch {
    throw new HttpApiUnavailable(`${api.url}${path}: not JSON`);
  }
}

function fromBase64(text: string | undefined): string {
  return Buffer.from(text ?? '', 'base64').toString('utf8');
}

/** A `json/plain` payload's value; any other payload (stored externally, binary, protobuf) is not read here. */
export function jsonPlainValue(payload: unknown): unknown {
  const { metadata, data, ...rest } = (payload ?? {}) as JsonPayload & Record<string, unknown>;
  if (Object.keys(rest).length > 0 || fromBase64(metadata?.encoding) !== 'json/plain')
    throw new HttpApiUnavailable('a payload this CLI does not decode without the data converter');
  try {
    return JSON.parse(fromBase64(data)) as unknown;
  } catch {
    throw new HttpApiUnavailable('a json/plain payload that is not JSON');
  }
}

function decodeFields(fields: unknown): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries((fields ?? {}) as Record<string, unknown>).map(([name, payload]) => [name, jsonPlainValue(payload)]),
  );
}

const STATUS_PREFIX = 'WORKFLOW_EXECUTION_STATUS_';

/** The SDK's name of a proto execution status (the proto spells CANCELED). */
function statusName(status: unknown): WorkflowExecutionStatusName {
  const name = typeof status === 'string' && status.startsWith(STATUS_PREFIX) ? status.slice(STATUS_PREFIX.length) : '';
  if (name === 'CANCELED') return 'CANCELLED';
  const known: readonly string[] = ['RUNNING', 'COMPLETED', 'FAILED', 'TERMINATED', 'CONTINUED_AS_NEW', 'TIMED_OUT'];
  return known.includes(name) ? (name as WorkflowExecutionStatusName) : 'UNKNOWN';
}

interface ExecutionInfoJson {
  execution?: { workflowId?: string; runId?: string };
  status?: string;
  startTime?: string;
  closeTime?: string;
  searchAttributes?: { indexedFields?: unknown };
  memo?: { fields?: unknown };
  parentExecution?: { workflowId?: string };
}

function executionOf(info: ExecutionInfoJson): HttpExecution {
  if (!info.execution?.workflowId || !info.execution.runId || !info.startTime)
    throw new HttpApiUnavailable('an execution without id, run id or start time');
  return {
    workflowId: info.execution.workflowId,
    runId: info.execution.runId,
    status: statusName(info.status),
    startTime: info.startTime,
    ...(info.closeTime ? { closeTime: info.closeTime } : {}),
    searchAttributes: decodeFields(info.searchAttributes?.indexedFields),
    memo: decodeFields(info.memo?.fields),
    ...(info.parentExecution?.workflowId ? { parentWorkflowId: info.parentExecution.workflowId } : {}),
  };
}

/**
 * The API path of one workflow. The server's router decodes `%2F` before it matches a route, so an id with a slash (a
 * sub-agent's, `ROOT/task-1-0`) has no path: such a workflow is read over gRPC.
 */
function workflowPath(workflowId: string): string {
  if (workflowId.includes('/')) throw new HttpApiUnavailable(`the HTTP API has no path for workflow id ${workflowId}`);
  return `/workflows/${encodeURIComponent(workflowId)}`;
}

/** DescribeWorkflowExecution of the latest run; undefined when there is no such workflow. */
export async function describeExecution(api: HttpApi, workflowId: string): Promise<HttpExecution | undefined> {
  const answer = await call(api, workflowPath(workflowId));
  if (!answer) return undefined;
  return executionOf((answer.workflowExecutionInfo ?? {}) as ExecutionInfoJson);
}

interface FailureJson {
  message?: string;
  encodedAttributes?: unknown;
  applicationFailureInfo?: { type?: string; details?: { payloads?: unknown[] } };
}

interface HistoryEventJson {
  workflowExecutionCompletedEventAttributes?: { result?: { payloads?: unknown[] } };
  workflowExecutionFailedEventAttributes?: { failure?: FailureJson; newExecutionRunId?: string };
  workflowExecutionTimedOutEventAttributes?: { newExecutionRunId?: string };
  workflowExecutionCanceledEventAttributes?: unknown;
  workflowExecutionTerminatedEventAttributes?: { reason?: string };
  workflowExecutionContinuedAsNewEventAttributes?: { newExecutionRunId?: string };
}

/**
 * How one run ended, as its close event says. `nextRunId` names the run that carries the workflow on (continued as new,
 * or retried after a failure or timeout), which the SDK's client follows too.
 */
export type RunEnd =
  | { kind: 'completed'; result?: unknown }
  /** `details`: the first detail of an AgentRunFailed failure, the only failure whose details the CLI reads. */
  | { kind: 'failed'; message: string; type?: string; details?: unknown; nextRunId?: string }
  | { kind: 'cancelled' }
  | { kind: 'terminated'; reason?: string }
  | { kind: 'timed-out'; nextRunId?: string }
  | { kind: 'continued'; nextRunId: string };

function firstValue(payloads: unknown[] | undefined): unknown {
  return payloads && payloads.length > 0 ? jsonPlainValue(payloads[0]) : undefined;
}

function runEndOf(event: HistoryEventJson): RunEnd {
  const completed = event.workflowExecutionCompletedEventAttributes;
  if (completed) return { kind: 'completed', result: firstValue(completed.result?.payloads) };
  const failed = event.workflowExecutionFailedEventAttributes;
  if (failed) {
    const failure = failed.failure ?? {};
    // A failure converter that encodes messages leaves them for the data converter to read.
    if (failure.encodedAttributes) throw new HttpApiUnavailable('an encoded failure');
    const info = failure.applicationFailureInfo;
    return {
      kind: 'failed',
      message: failure.message ?? '',
      ...(info?.type ? { type: info.type } : {}),
      ...(info?.type === 'AgentRunFailed' ? { details: firstValue(info.details?.payloads) } : {}),
      ...(failed.newExecutionRunId ? { nextRunId: failed.newExecutionRunId } : {}),
    };
  }
  const timedOut = event.workflowExecutionTimedOutEventAttributes;
  if (timedOut)
    return { kind: 'timed-out', ...(timedOut.newExecutionRunId ? { nextRunId: timedOut.newExecutionRunId } : {}) };
  if (event.workflowExecutionCanceledEventAttributes) return { kind: 'cancelled' };
  const terminated = event.workflowExecutionTerminatedEventAttributes;
  if (terminated) return { kind: 'terminated', ...(terminated.reason ? { reason: terminated.reason } : {}) };
  const nextRunId = event.workflowExecutionContinuedAsNewEventAttributes?.newExecutionRunId;
  if (nextRunId) return { kind: 'continued', nextRunId };
  throw new HttpApiUnavailable('a close event of a kind this CLI does not read');
}

/**
 * How one run ended, from its close event (the server's close-event filter: one event, not the history); undefined
 * while the run is open or when there is no such run. With `wait`, a long poll that answers when the run closes
 * (undefined then only when there is no such run); `signal` abandons it.
 */
export async function runEnd(
  api: HttpApi,
  workflowId: string,
  runId: string,
  options: { wait?: boolean; signal?: AbortSignal } = {},
): Promise<RunEnd | undefined> {
  let nextPageToken = '';
  for (;;) {
    const query = new URLSearchParams({
      'execution.runId': runId,
      historyEventFilterType: 'HISTORY_EVENT_FILTER_TYPE_CLOSE_EVENT',
      ...(options.wait ? { waitNewEvent: 'true' } : {}),
      ...(nextPageToken ? { nextPageToken } : {}),
    });
    const answer = await call(api, `${workflowPath(workflowId)}/history?${query.toString()}`, undefined, {
      ...(options.wait ? { timeoutMs: LONG_POLL_TIMEOUT_MS } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
    });
    if (!answer) return undefined;
    const event = ((answer.history as { events?: HistoryEventJson[] } | undefined)?.events ?? []).at(-1);
    if (event) return runEndOf(event);
    // A long poll that ran out on an open run answers no event and the token to poll on with.
    nextPageToken = typeof answer.nextPageToken === 'string' ? answer.nextPageToken : '';
    if (!options.wait || !nextPageToken) return undefined;
  }
}

/** What a closed run's close event carries for `status`: the result, or the details of the failure it closed with. */
export interface CloseEvent {
  /** The result (completed) or the first detail of an AgentRunFailed failure (failed); undefined otherwise. */
  value?: unknown;
  /** Why the run was terminated, as the operator gave it. */
  terminationReason?: string;
}

/** The close event of one run as `status` reads it; undefined while the run is open or when there is no such run. */
export async function closeEvent(api: HttpApi, workflowId: string, runId: string): Promise<CloseEvent | undefined> {
  const end = await runEnd(api, workflowId, runId);
  if (!end) return undefined;
  if (end.kind === 'terminated') return end.reason ? { terminationReason: end.reason } : {};
  const value =
    end.kind === 'completed'
      ? end.result
      : end.kind === 'failed' && end.type === 'AgentRunFailed'
        ? end.details
        : undefined;
  return value === undefined ? {} : { value };
}

/** `value` as the SDK's default converter encodes it: a `json/plain` payload (base64, no shorthand). */
export function jsonPlainPayload(value: unknown): Required<JsonPayload> {
  return {
    metadata: { encoding: Buffer.from('json/plain').toString('base64') },
    data: Buffer.from(JSON.stringify(value)).toString('base64'),
  };
}

/**
 * QueryWorkflow on one run (the latest without `runId`); its answer decoded. Undefined when there is no such run.
 * `signal` abandons it.
 */
export async function queryWorkflow(
  api: HttpApi,
  workflowId: string,
  runId: string | undefined,
  queryType: string,
  args: unknown[],
  signal?: AbortSignal,
): Promise<unknown> {
  const answer = await call(
    api,
    `${workflowPath(workflowId)}/query/${encodeURIComponent(queryType)}`,
    {
      execution: { workflowId, ...(runId ? { runId } : {}) },
      query: { queryType, queryArgs: { payloads: args.map(jsonPlainPayload) } },
    },
    signal ? { signal } : {},
  );
  if (!answer) return undefined;
  if (answer.queryRejected) throw new HttpApiUnavailable(`query ${queryType} rejected`);
  const payloads = (answer.queryResult as { payloads?: unknown[] } | undefined)?.payloads ?? [];
  if (payloads.length === 0) throw new HttpApiUnavailable(`query ${queryType} answered nothing`);
  return jsonPlainValue(payloads[0]);
}

/** What StartWorkflowExecution is given; the values are sent as `json/plain` payloads. */
export interface StartRequest {
  workflowId: string;
  workflowType: string;
  taskQueue: string;
  input: unknown[];
  memo: Record<string, unknown>;
  /** The Web UI's summary and details of the run. */
  summary: string;
  details: string;
  /** Makes a retried request start the workflow once. */
  requestId: string;
  identity: string;
  /** Header fields of the start (`json/plain` each), as the SDK's interceptors read them. */
  header?: Record<string, unknown>;
}

/** StartWorkflowExecution with `json/plain` payloads, as the SDK's client sends it; returns the run id. */
export async function startExecution(api: HttpApi, request: StartRequest): Promise<string> {
  const answer = await call(api, workflowPath(request.workflowId), {
    workflowId: request.workflowId,
    workflowType: { name: request.workflowType },
    taskQueue: { name: request.taskQueue, kind: 'TASK_QUEUE_KIND_NORMAL' },
    input: { payloads: request.input.map(jsonPlainPayload) },
    memo: {
      fields: Object.fromEntries(Object.entries(request.memo).map(([name, value]) => [name, jsonPlainPayload(value)])),
    },
    userMetadata: { summary: jsonPlainPayload(request.summary), details: jsonPlainPayload(request.details) },
    requestId: request.requestId,
    identity: request.identity,
    ...(request.header
      ? {
          header: {
            fields: Object.fromEntries(Object.entries(request.header).map(([k, v]) => [k, jsonPlainPayload(v)])),
          },
        }
      : {}),
  });
  const runId = answer?.runId;
  if (typeof runId !== 'string' || !runId) throw new HttpApiUnavailable('StartWorkflowExecution answered no run id');
  return runId;
}

/** ListWorkflowExecutions, page by page, the executions of up to `limit` workflows. */
export async function listExecutions(api: HttpApi, query: string, limit: number): Promise<HttpExecution[]> {
  const executions: HttpExecution[] = [];
  // `limit` counts tasks: a task's earlier runs (continued as new, or reset) come on top of it.
  const workflows = new Set<string>();
  let nextPageToken = '';
  do {
    const parameters = new URLSearchParams({ query, pageSize: String(Math.min(limit, 1000)) });
    if (nextPageToken) parameters.set('nextPageToken', nextPageToken);
    const answer = await call(api, `/workflows?${parameters.toString()}`);
    if (!answer) throw new HttpApiUnavailable('the namespace was not found');
    for (const info of (answer.executions ?? []) as ExecutionInfoJson[]) {
      const execution = executionOf(info);
      if (!workflows.has(execution.workflowId) && workflows.size >= limit) return executions;
      workflows.add(execution.workflowId);
      executions.push(execution);
    }
    nextPageToken = typeof answer.nextPageToken === 'string' ? answer.nextPageToken : '';
  } while (nextPageToken);
  return executions;
}
