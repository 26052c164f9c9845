// Reads an agent run step by step out of its Temporal event history: pure parsing, no server, so the same code reads
// a history fetched from the server and one saved as JSON (`temporal workflow show --output json`, historyToJSON).
import { ACTIVITY } from '../protocol/activity-names.js';
import type { History } from '@temporalio/common/lib/proto-utils.js';
import type { ChatMessage, ModelRequest, ModelTurn, RawToolCall } from '../protocol/model.js';
import type { ForkOrigin } from '../core/run/fork.js';
import type { AgentResult, RunStatus } from '../protocol/run-report.js';
import type { ToolSelectionRecord } from '../protocol/model.js';
import { normalizeToolCallIds } from '../core/tool-calls.js';
import type { CallCheckpoint, StoredToolResult, ToolActivityInput } from '../protocol/tool-activity.js';
import type { RiskLevel } from '../protocol/risk-level.js';
import { runStatusOf } from './run-status.js';
import type { ActivityRecord } from './activity-records.js';
import { collectActivities, isModelTurn, isToolActivity } from './activity-records.js';
import type { HistoryEvent } from './events.js';
import type { ChildRecordOfHistory } from './child-records.js';
import { collectChildren } from './child-records.js';
import { childSegment } from '../protocol/sub-agent-ids.js';
import { task as taskTool } from '../tools/task.js';
import { decodeEventPayload, decodeEventPayloads, isObject } from './events.js';

/**
 * How a tool call ended: the envelope status the model saw, `cancelled` when its activity was cancelled, `running`
 * while its activity has not closed, `waiting_approval` while a human decides on it, `not_run` when the call was
 * planned but never answered (the run stopped first).
 */
export type ToolCallStatus = 'success' | 'partial' | 'error' | 'cancelled' | 'running' | 'waiting_approval' | 'not_run';

/** The model call of one step. */
export interface ModelCallRecord {
  model: string;
  promptTokens: number;
  completionTokens: number;
  /** From scheduling to the final outcome, retries included; null while the call is in flight. */
  durationMs: number | null;
  /** Attempts the server recorded (0 while the first attempt is still running). */
  attempts: number;
  /** What went wrong in the attempts the history knows of: the one before the last, and the last one if it failed. */
  failures: string[];
}

/** One tool call of a step. */
export interface ToolCallRecord {
  callId: string;
  tool: string;
  /** The activity's one-line label ("ReadFile src/a.ts"); empty for calls that never became an activity. */
  summary: string;
  status: ToolCallStatus;
  errorCode?: string;
  /** From scheduling to the final outcome, retries included; 0 for calls rejected before running, null while in flight. */
  durationMs: number | null;
  attempts: number;
  /** The permission decision that let the call run (Bash): its risk level and the classifier rule that set it. */
  classification?: { level: RiskLevel; rule: string };
  /** A Task call: the sub-agent (child workflow) it started, and its history when the reader was asked to nest it. */
  subAgent?: SubAgentCall;
  /** A call that may have changed the workspace: the checkpoints around it and how many files it changed. */
  checkpoint?: CallCheckpoint;
}

/** The child workflow a Task call started. */
export interface SubAgentCall extends ChildRecordOfHistory {
  /** The child read from its own history (`history --depth`); absent when not read. */
  history?: RunHistory;
}

/** One ReAct step: the model call, then the tool calls it asked for, in the order the model gave them. */
export interface StepRecord {
  step: number;
  model: ModelCallRecord;
  tools: ToolCallRecord[];
  /** The tools the model was shown, when the run had more than its limit and selected them (core/tool-selection). */
  toolSelection?: ToolSelectionRecord;
  /** The conversation's request this step begins (a follow-up's first model call). */
  request?: { n: number; text: string };
}

/** A run read from its history. */
export interface RunHistory {
  workflowId: string;
  /** The (last) run read. */
  runId: string;
  status: RunStatus;
  /** The run's tool profile, as its model requests name it. */
  profile?: string;
  /** Why a terminated run was terminated, as the operator gave it. */
  terminationReason?: string;
  /** What an open run waits for a human to decide (its approval timers' summaries: `approval: Bash rm -rf build — destructive`). */
  waitingFor?: string[];
  /** Where an operator reset the run (`temporal workflow reset`): the steps after it are the new run's, not the base's. */
  resets?: ResetPoint[];
  /** The run this one was forked from (`durable-agent fork`), from its memo. */
  forkedFrom?: ForkOrigin;
  /** The runs forked from this one (found by the CLI, not in this history). */
  forks?: { workflowId: string; step: number }[];
  steps: StepRecord[];
  /** Every run read, oldest first: more than one when the task continued as new. */
  runIds: string[];
}

/** A reset in the chain that led to a run: the steps up to `afterStep` were kept, the base run's later ones abandoned. */
export interface ResetPoint {
  afterStep: number;
  /** The run reset from; its own history (`history --run-id`) still holds the abandoned steps. */
  baseRunId: string;
  reason: string;
}

function durationOf(record: ActivityRecord): number | null {
  return record.closedAt === undefined ? null : Math.max(0, record.closedAt - record.scheduledAt);
}

function modelRecord(record: ActivityRecord): ModelCallRecord {
  const request = record.input as Partial<ModelRequest> | undefined;
  const turn = isModelTurn(record.result) ? record.result : undefined;
  const failures = [...(record.lastFailure ? [record.lastFailure] : []), ...(record.failure ? [record.failure] : [])];
  return {
    model: turn?.model ?? request?.selection?.model ?? 'unknown',
    promptTokens: turn?.usage?.promptTokens ?? 0,
    completionTokens: turn?.usage?.completionTokens ?? 0,
    durationMs: durationOf(record),
    attempts: record.attempt,
    failures,
  };
}

type Answer = { status: ToolCallStatus; errorCode?: string };

/** The status and error code of a serialized envelope, as the model received it in a tool message. */
function envelopeOutcome(content: string): Answer | undefined {
  try {
    const parsed: unknown = JSON.parse(content);
    if (!isObject(parsed)) return undefined;
    const status = parsed.status;
    if (status !== 'success' && status !== 'partial' && status !== 'error') return undefined;
    const code = isObject(parsed.error) && typeof parsed.error.code === 'string' ? parsed.error.code : undefined;
    return { status, ...(code ? { errorCode: code } : {}) };
  } catch {
    return undefined;
  }
}

function toolRecord(record: ActivityRecord, input: ToolActivityInput, answered: Answer | undefined): ToolCallRecord {
  const classification = input.classification;
  const checkpoint =
    record.outcome === 'completed' ? (record.result as Partial<StoredToolResult>)?.checkpoint : undefined;
  const withOutcome = (outcome: Answer): ToolCallRecord => ({
    callId: input.callId,
    // Every MCP tool runs as one activity type; the request names the tool.
    tool: input.mcp?.tool ?? record.activityType,
    summary: record.summary,
    ...outcome,
    durationMs: durationOf(record),
    attempts: record.attempt,
    ...(classification ? { classification: { level: classification.level, rule: classification.rule } } : {}),
    ...(checkpoint ? { checkpoint } : {}),
  });
  if (record.outcome === 'running') return withOutcome({ status: 'running' });
  if (record.outcome === 'cancelled') return withOutcome({ status: 'cancelled' });
  // What the model was sent is authoritative: the workflow turns a failed activity into an error envelope.
  if (answered) return withOutcome(answered);
  const outcome = (record.result as Partial<StoredToolResult> | undefined)?.outcome;
  if (record.outcome === 'completed' && outcome) {
    return withOutcome({ status: outcome.status, ...(outcome.error?.code ? { errorCode: outcome.error.code } : {}) });
  }
  return withOutcome({ status: 'error', ...(record.outcome === 'timed_out' ? { errorCode: 'TIMEOUT' } : {}) });
}

/**
 * What the workflow itself told the model about the calls of the step before `request` (a gate's denial, a lost
 * activity): those tool messages travel with the next request as content to store. Scoped per step because a model
 * may reuse a call id in later steps.
 */
function answersIn(request: Partial<ModelRequest> | undefined): Map<string, Answer> {
  const answers = new Map<string, Answer>();
  for (const content of Object.values(request?.writes ?? {})) {
    const message = parseMessage(content);
    if (message?.role !== 'tool' || answers.has(message.tool_call_id)) continue;
    const outcome = envelopeOutcome(message.content);
    if (outcome) answers.set(message.tool_call_id, outcome);
  }
  return answers;
}

function parseMessage(content: string): ChatMessage | undefined {
  try {
    const parsed = JSON.parse(content) as Partial<ChatMessage>;
    return typeof parsed.role === 'string' ? (parsed as ChatMessage) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The summary (`Bash rm -rf build`) of a call an open approval timer waits on: the timer's summary names the call's
 * tool and what it touches (`approval: Bash rm -rf build — destructive`, core/approvals `approvalSummary`).
 */
function awaitedApproval(call: RawToolCall | undefined, waitingFor: readonly string[]): string | undefined {
  if (!call?.name || waitingFor.length === 0) return undefined;
  const parsed = argumentsOf(call);
  const subject = parsed.command ?? parsed.path;
  const what = typeof subject === 'string' ? subject.replace(/\s+/g, ' ').trim() : '';
  const summary = `${call.name}${what ? ` ${what}` : ''}`;
  return waitingFor.some((waiting) => waiting.startsWith(`approval: ${summary} — `)) ? summary : undefined;
}

/** What a Task call said it delegates (its `description` argument), for its history line. */
function taskDescription(call: RawToolCall | undefined): string {
  const { description } = argumentsOf(call);
  return typeof description === 'string' ? description : '';
}

/** A call's arguments as the model sent them: an object, or none when they are not a JSON object. */
function argumentsOf(call: RawToolCall | undefined): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(call?.arguments ?? '{}');
    return isObject(parsed) ? parsed : {};
  } catch {
    return {};
  }
}

/** The run's status; an open run with an approval timer still running waits for approval, and says for what. */
function statusWithWaits(events: HistoryEvent[]): { status: RunStatus; waitingFor?: string[] } {
  const status = runStatus(events);
  if (status !== 'running') return { status };
  const open = new Map<string, string>();
  for (const event of events) {
    const started = event.timerStartedEventAttributes;
    const summary = decodeEventPayload(event.userMetadata?.summary);
    if (started?.timerId && typeof summary === 'string' && summary.startsWith('approval: ')) {
      open.set(started.timerId, summary);
    }
    const closed = event.timerFiredEventAttributes?.timerId ?? event.timerCanceledEventAttributes?.timerId;
    if (closed) open.delete(closed);
  }
  return open.size > 0 ? { status: 'waiting_approval', waitingFor: [...open.values()] } : { status };
}

/**
 * The resets a run's history records: a reset copies the base run's events up to the chosen workflow task into the new
 * run and marks the cut with a workflow-task failure naming the base run. The steps whose model call was scheduled
 * before the mark are the ones kept.
 */
function resetsOf(events: HistoryEvent[]): { resets?: ResetPoint[] } {
  const resets: ResetPoint[] = [];
  let lastStep = 0;
  for (const event of events) {
    const scheduled = event.activityTaskScheduledEventAttributes;
    if (scheduled?.activityType?.name === ACTIVITY.callModel) {
      const request = decodeEventPayloads(scheduled.input?.payloads) as Partial<ModelRequest> | undefined;
      if (request?.purpose !== 'compaction' && typeof request?.step === 'number') lastStep = request.step;
    }
    const failed = event.workflowTaskFailedEventAttributes;
    if (failed?.baseRunId && failed.failure?.resetWorkflowFailureInfo) {
      resets.push({ afterStep: lastStep, baseRunId: failed.baseRunId, reason: failed.failure.message ?? '' });
    }
  }
  return resets.length > 0 ? { resets } : {};
}

/** The fork origin a run's memo names, when it is a fork. */
export function forkOriginOf(memoField: unknown): ForkOrigin | undefined {
  if (!isObject(memoField)) return undefined;
  const { workflowId, runId, step } = memoField;
  return typeof workflowId === 'string' && typeof runId === 'string' && typeof step === 'number'
    ? { workflowId, runId, step }
    : undefined;
}

function forkedFromOf(events: HistoryEvent[]): { forkedFrom?: ForkOrigin } {
  const memo = events[0]?.workflowExecutionStartedEventAttributes?.memo?.fields?.forkedFrom;
  const forkedFrom = forkOriginOf(decodeEventPayload(memo));
  return forkedFrom ? { forkedFrom } : {};
}

function terminationOf(events: HistoryEvent[]): { terminationReason?: string } {
  const reason = events.at(-1)?.workflowExecutionTerminatedEventAttributes?.reason;
  return reason ? { terminationReason: reason } : {};
}

function runStatus(events: HistoryEvent[]): RunStatus {
  for (let index = events.length - 1; index >= 0; index--) {
    const event = events[index]!;
    const completed = event.workflowExecutionCompletedEventAttributes;
    if (completed) {
      const result = decodeEventPayloads(completed.result?.payloads) as Partial<AgentResult> | undefined;
      return runStatusOf('COMPLETED', result?.status);
    }
    if (event.workflowExecutionFailedEventAttributes) return runStatusOf('FAILED');
    if (event.workflowExecutionTimedOutEventAttributes) return runStatusOf('TIMED_OUT');
    if (event.workflowExecutionCanceledEventAttributes) return runStatusOf('CANCELLED');
    if (event.workflowExecutionTerminatedEventAttributes) return runStatusOf('TERMINATED');
    // This run handed the task on; the chain's status is its last run's (mergeRunHistories).
    if (event.workflowExecutionContinuedAsNewEventAttributes) return runStatusOf('CONTINUED_AS_NEW');
  }
  return runStatusOf('RUNNING');
}

/** The workflow id and run id a history records in its first event. */
export function historyIdentity(history: History): { workflowId: string; runId: string } {
  const started = history.events?.[0]?.workflowExecutionStartedEventAttributes;
  return { workflowId: started?.workflowId ?? '', runId: started?.originalExecutionRunId ?? '' };
}

/** Reads a run step by step from its event history; `identity` overrides the ids the history records. */
export function readRunHistory(
  history: History,
  identity: Partial<{ workflowId: string; runId: string }> = {},
): RunHistory {
  const events = history.events ?? [];
  const activities = [...collectActivities(events).values()];
  // A compaction's summarising call is not a step of its own (its tokens are in the run's usage).
  const modelCalls = activities.filter(
    (record) =>
      record.activityType === ACTIVITY.callModel &&
      (record.input as Partial<ModelRequest> | undefined)?.purpose !== 'compaction',
  );
  const steps = new Map<number, StepRecord>();
  const turns = new Map<number, ModelTurn>();
  const requests = new Map<number, Partial<ModelRequest> | undefined>();

  modelCalls.forEach((record, ordinal) => {
    const requested = (record.input as Partial<ModelRequest> | undefined)?.step;
    const step = typeof requested === 'number' ? requested : ordinal + 1;
    // A second model call for a step (a workflow reset, say) replaces the first: the later one is what the run used.
    const { toolSelection: selection, request } = (record.input as Partial<ModelRequest> | undefined) ?? {};
    steps.set(step, {
      step,
      model: modelRecord(record),
      tools: [],
      ...(selection ? { toolSelection: selection } : {}),
      ...(request ? { request } : {}),
    });
    requests.set(step, record.input as Partial<ModelRequest> | undefined);
    if (isModelTurn(record.result)) turns.set(step, record.result);
    else turns.delete(step);
  });

  const toolActivities = new Map<string, { record: ActivityRecord; input: ToolActivityInput }>();
  for (const record of activities) {
    if (!isToolActivity(record)) continue;
    toolActivities.set(`${record.input.turn}\u0000${record.input.callId}`, { record, input: record.input });
  }

  const status = statusWithWaits(events);
  const waitingFor = status.waitingFor ?? [];
  const children = collectChildren(events);
  const stepNumbers = [...steps.keys()].sort((left, right) => left - right);
  for (const [position, step] of stepNumbers.entries()) {
    const entry = steps.get(step)!;
    const turn = turns.get(step);
    const next = stepNumbers[position + 1];
    const answers = next === undefined ? new Map<string, Answer>() : answersIn(requests.get(next));
    const seen = new Set<string>();
    // Calls in the order the model gave them; ids normalised exactly as the workflow does (docs/tools.md §3 step 1).
    const ids = turn ? normalizeToolCallIds(turn.toolCalls, step) : [];
    ids.forEach(({ id }, index) => {
      seen.add(id);
      const activity = toolActivities.get(`${step}\u0000${id}`);
      if (activity) {
        entry.tools.push(toolRecord(activity.record, activity.input, answers.get(id)));
        return;
      }
      const answered = answers.get(id);
      // A Task call is a child workflow: its time is the child's, from the parent's start command to its close.
      const child = children.get(childSegment(step, index));
      if (child && turn?.toolCalls[index]?.name === taskTool.name) {
        entry.tools.push({
          callId: id,
          tool: taskTool.name,
          summary: taskDescription(turn.toolCalls[index]),
          ...(answered ?? { status: child.outcome === 'running' ? ('running' as const) : ('not_run' as const) }),
          durationMs: child.durationMs,
          attempts: 1,
          subAgent: child,
        });
        return;
      }
      // Never an activity: rejected while planning (unknown tool, bad arguments), waiting for a human, or not reached
      // before the run stopped.
      const waiting = answered ? undefined : awaitedApproval(turn?.toolCalls[index], waitingFor);
      entry.tools.push({
        callId: id,
        tool: turn?.toolCalls[index]?.name ?? '',
        summary: waiting ?? '',
        ...(answered ?? { status: waiting ? ('waiting_approval' as const) : ('not_run' as const) }),
        durationMs: answered ? 0 : null,
        attempts: 0,
      });
    });
    const unlisted = [...toolActivities.values()]
      .filter(({ input }) => input.turn === step && !seen.has(input.callId))
      .sort((left, right) => left.input.index - right.input.index);
    for (const { record, input } of unlisted) entry.tools.push(toolRecord(record, input, answers.get(input.callId)));
  }

  const recorded = historyIdentity(history);
  const profile = modelCalls
    .map((record) => (record.input as Partial<ModelRequest> | undefined)?.profile)
    .find(Boolean);
  return {
    workflowId: identity.workflowId ?? recorded.workflowId,
    runId: identity.runId ?? recorded.runId,
    ...status,
    ...(profile ? { profile } : {}),
    ...terminationOf(events),
    ...resetsOf(events),
    ...forkedFromOf(events),
    steps: stepNumbers.map((step) => steps.get(step)!),
    runIds: [identity.runId ?? recorded.runId],
  };
}

/**
 * The run this one continued from, when it did. Followed backwards from the current run, these links give the chain
 * that actually led to it: a reset run starts with its base run's events, so it names the base's predecessor, and a
 * run abandoned by a reset is never on the way.
 */
export function previousRun(history: History): string | undefined {
  return history.events?.[0]?.workflowExecutionStartedEventAttributes?.continuedExecutionRunId || undefined;
}

/** One task read across the runs it continued as new through (oldest first): steps in order, status of the last run. */
export function mergeRunHistories(runs: RunHistory[]): RunHistory {
  const last = runs.at(-1);
  if (!last) throw new Error('mergeRunHistories needs at least one run');
  const steps = new Map<number, StepRecord>();
  for (const run of runs) for (const step of run.steps) steps.set(step.step, step);
  const resets = runs.flatMap((run) => run.resets ?? []);
  return {
    workflowId: last.workflowId,
    runId: last.runId,
    status: last.status,
    ...(runs.find((run) => run.profile)?.profile ? { profile: runs.find((run) => run.profile)!.profile! } : {}),
    ...(last.waitingFor ? { waitingFor: last.waitingFor } : {}),
    ...(last.terminationReason ? { terminationReason: last.terminationReason } : {}),
    ...(resets.length > 0 ? { resets } : {}),
    ...(runs[0]!.forkedFrom ? { forkedFrom: runs[0]!.forkedFrom } : {}),
    steps: [...steps.values()].sort((left, right) => left.step - right.step),
    runIds: runs.flatMap((run) => run.runIds),
  };
}
