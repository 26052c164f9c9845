// Node: the wrapper every tool activity runs through. It builds the executor's context from Temporal's activity
// context, turns executor exceptions into envelopes on the last attempt, and applies layer 1 of the output budget.
import type { Context } from '@temporalio/activity';
import { currentActivityContext } from './activity-context.js';
import { inToolCallSpan } from './telemetry.js';
import { keepAlive } from './keep-alive.js';
import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import { performance } from 'node:perf_hooks';
import path from 'node:path';
import {
  MAX_TOOL_RESULT_BYTES,
  compressEnvelope,
  normalizeEmpty,
  renderEnvelope,
  spillDirectory,
} from '../core/output-budget.js';
import { abbreviateParams, envelopeSize, errorEnvelope } from '../protocol/envelope.js';
import type { Envelope, EnvelopeContext } from '../protocol/envelope.js';
import type { ExecutorContext, ToolExecutor } from './executors/types.js';
import type { ContentStore } from '../store/content-store.js';
import { spillForBudget, withUnsavedSpill } from './spill.js';
import type { ToolActivityInput, ToolActivityResult } from '../protocol/tool-activity.js';
import { realWorkspaceRoot } from './workspace.js';
import { defaultWorkerDataDir, workspaceDataDirectory } from './worker-data.js';

/** Overrides for runTool; inside an activity the Temporal context supplies the defaults. */
export interface RunToolOptions {
  /**
   * The activity's retry limit. Precedence: this, then `request.maximumAttempts`, then the retry policy the server
   * reports in the activity info. Unknown or unlimited (0) means every attempt is treated as the last one.
   */
  maximumAttempts?: number;
  /** Layer-1 limit; defaults to env `AGENT_MAX_TOOL_RESULT_BYTES`, else MAX_TOOL_RESULT_BYTES. */
  maxToolResultBytes?: number;
  /** Outside an activity: the cancellation signal (inside one, Temporal's is used). */
  signal?: AbortSignal;
  /** Outside an activity: the heartbeat sink. */
  heartbeat?(details?: unknown): void;
  /** Outside an activity: the attempt number (default 1). */
  attempt?: number;
  /** Outside an activity: the key stable across retries (default `<taskId>/<turn>/<index>/<callId>`). */
  activityKey?: string;
  /** Where spilled outputs are also stored, readable from any worker and the CLI. */
  store?: ContentStore;
  /** The worker's data directory (worker-data.ts); default `<state dir>/worker`. */
  dataDir?: string;
}

/** Runs one tool executor as (the body of) a Temporal activity and returns an envelope within the per-result budget. */
export function runTool(
  toolName: string,
  executor: ToolExecutor,
  request: ToolActivityInput,
  options: RunToolOptions = {},
): Promise<ToolActivityResult> {
  return inToolCallSpan(
    toolName,
    {
      'gen_ai.tool.call.id': request.callId,
      'durable_agent.step': request.turn,
      ...(request.classification ? { 'durable_agent.tool.risk_level': request.classification.level } : {}),
      ...(request.approved ? { 'durable_agent.tool.approved': true } : {}),
    },
    () => runToolInSpan(toolName, executor, request, options),
  );
}

async function runToolInSpan(
  toolName: string,
  executor: ToolExecutor,
  request: ToolActivityInput,
  options: RunToolOptions,
): Promise<ToolActivityResult> {
  const started = performance.now();
  const elapsedMs = (): number => Math.round(performance.now() - started);
  const activity = currentActivityContext();
  const attempt = activity?.info.attempt ?? options.attempt ?? 1;
  const signal = activity?.cancellationSignal ?? options.signal ?? new AbortController().signal;
  const context = baseContext(request);
  const heartbeats = keepAlive(activity);
  try {
    const root = await realWorkspaceRoot(request.workspace);
    const executorContext: ExecutorContext = {
      root,
      request,
      context,
      signal,
      heartbeat: activity ? (details) => heartbeats.beat(details) : (details) => options.heartbeat?.(details),
      attempt,
      activityKey: activity ? activityKeyOf(activity) : (options.activityKey ?? defaultActivityKey(request)),
      outputDir: path.join(root, ...spillDirectory(request.taskId).split('/')),
      dataDir: workspaceDataDirectory(options.dataDir ?? defaultWorkerDataDir(), root),
      ...(options.store ? { store: options.store } : {}),
      elapsedMs,
    };
    const result = await executor(executorContext);
    // A tool that stopped because Temporal cancelled its activity (a command whose group was killed) is reported as
    // cancelled, so the workflow answers the call with who interrupted it and why; a tool that finished anyway (a
    // write, which does not stop midway) keeps its result.
    if (result.envelope.error?.code === 'CANCELLED' && isCancellation(undefined, signal)) throw signal.reason;
    const envelope = await applyToolBudget(normalizeEmpty(result.envelope, toolName), {
      root,
      toolName,
      request,
      maxBytes: options.maxToolResultBytes ?? maxToolResultBytesFromEnv(),
      ...(options.store ? { store: options.store } : {}),
    });
    return { ...result, envelope };
  } catch (error) {
    if (isCancellation(error, signal)) throw cancellationOf(error, signal);
    const maximumAttempts =
      options.maximumAttempts ?? request.maximumAttempts ?? activity?.info.retryPolicy?.maximumAttempts;
    if (!isFinalAttempt(error, attempt, maximumAttempts)) throw error;
    const message = error instanceof Error ? error.message : String(error);
    activity?.log.warn(`Tool '${toolName}' failed on its last attempt`, { attempt, error: message });
    return {
      envelope: errorEnvelope({
        code: 'INTERNAL_ERROR',
        message: `Tool '${toolName}' failed: ${message}`,
        stats: { time_ms: elapsedMs() },
        context,
      }),
    };
  } finally {
    heartbeats.stop();
  }
}

/**
 * Layer 1 of docs/tools.md §9: a result larger than `maxBytes` is spilled in full and replaced by its compressed
 * form.
 */
export async function applyToolBudget(
  envelope: Envelope,
  options: { root: string; toolName: string; request: ToolActivityInput; maxBytes: number; store?: ContentStore },
): Promise<Envelope> {
  if (envelopeSize(envelope) <= options.maxBytes) return envelope;
  const { request } = options;
  const spilled = await spillForBudget(
    {
      root: options.root,
      taskId: request.taskId,
      turn: request.turn,
      index: request.index,
      toolName: options.toolName,
      callId: request.callId,
      suffix: 'result',
    },
    renderEnvelope(envelope),
    options.store,
  );
  return withUnsavedSpill(compressEnvelope(envelope, 'single_tool_budget', spilled.path, spilled.key), spilled);
}

/** The layer-1 limit from `AGENT_MAX_TOOL_RESULT_BYTES`, or MAX_TOOL_RESULT_BYTES when unset or not a positive integer. */
export function maxToolResultBytesFromEnv(env: NodeJS.ProcessEnv = process.env): number {
  const configured = Number(env.AGENT_MAX_TOOL_RESULT_BYTES);
  return Number.isInteger(configured) && configured > 0 ? configured : MAX_TOOL_RESULT_BYTES;
}

/**
 * Whether an exception should become an envelope now rather than go back to Temporal for a retry: on the last attempt,
 * when the failure is marked non-retryable, or when the retry limit is unknown or unlimited (an exception must not
 * loop forever, and the model can act on an INTERNAL_ERROR).
 */
export function isFinalAttempt(error: unknown, attempt: number, maximumAttempts: number | undefined): boolean {
  if (error instanceof ApplicationFailure && error.nonRetryable) return true;
  if (maximumAttempts === undefined || maximumAttempts <= 0) return true;
  return attempt >= maximumAttempts;
}

function baseContext(request: ToolActivityInput): EnvelopeContext {
  return {
    tool_call_id: request.callId,
    cwd: '.',
    params_input: abbreviateParams(request.paramsInput),
    ...(request.repairs?.length ? { repairs: request.repairs } : {}),
    ...(request.ignoredParams?.length ? { ignored_params: request.ignoredParams } : {}),
  };
}

function activityKeyOf(activity: Context): string {
  const { workflowExecution, activityId, activityRunId } = activity.info;
  return workflowExecution
    ? `${workflowExecution.workflowId}/${workflowExecution.runId}/${activityId}`
    : `${activityRunId ?? 'standalone'}/${activityId}`;
}

function defaultActivityKey(request: ToolActivityInput): string {
  return `${request.taskId}/${request.turn}/${request.index}/${request.callId}`;
}

function isCancellation(error: unknown, signal: AbortSignal): boolean {
  return error instanceof CancelledFailure || (signal.aborted && signal.reason instanceof CancelledFailure);
}

function cancellationOf(error: unknown, signal: AbortSignal): unknown {
  return error instanceof CancelledFailure ? error : signal.reason;
}
