// Workflow-safe and deterministic: the rules of a conversation — a task that goes on after its answers. A session run
// (`run --session`) answers and waits for the next request (a steering message, core/run/inbox) instead of completing;
// each request gets the run's step limit; a waiting run continues as new when it is due, so a conversation of weeks
// keeps its history per request flat; a closed task goes on in a new run from its last state (`continue`).
import { defineQuery } from '@temporalio/workflow';
import type { ControlRequest } from '../../protocol/run-control.js';
import { visibleText } from '../terminal-text.js';
import type { Conversation } from '../../protocol/conversation.js';
import type { AgentInput, AgentState } from '../state.js';
import { addEvent, addProgress } from '../state.js';
import { queueMessage } from './inbox.js';

/** How long a session waits for the next request when `--idle` does not say: a coffee break, not a night. */
export const DEFAULT_IDLE_MS = 30 * 60_000;

/** Requests a conversation remembers (for `status` and the Web UI; `history` reads them all); older ones are counted. */
export const MAX_KEPT_REQUESTS = 50;

/**
 * Progress lines and trace events a waiting run hands over to the next run of its chain: about the last requests'
 * worth. The rest stays in the history of the runs that made it; carried whole, the state each run starts with would
 * grow with every request until the general bounds (MAX_PROGRESS_ENTRIES, MAX_TRACE_EVENTS), hundreds of KiB.
 */
export const HANDED_OVER_PROGRESS = 50;
export const HANDED_OVER_EVENTS = 50;

/** Trace events a hand-over keeps however old: refusals of unsigned control input, which `status` lists. */
const KEPT_EVENT_TYPES = new Set(['decision_refused', 'control_refused']);

/**
 * A waiting run continues as new after this many requests in one run (or sooner, when Temporal suggests it): each
 * request adds its model calls and tool calls to the run's history, a new run starts with the state alone.
 */
export const REQUESTS_PER_RUN = 10;

/** What a task's run hands on to the next run of its chain: its input (without proof or state) and its state. */
export interface TaskSnapshot {
  input: AgentInput;
  state: AgentState;
}

/**
 * Query `taskSnapshot`: the run's input and state, so `durable-agent continue` can start the next run of a closed task
 * from where it ended (Temporal answers a query of a closed run by replaying its history on a worker).
 */
export const taskSnapshotQuery = defineQuery<TaskSnapshot>('taskSnapshot');

/** The task's requests; a conversation's first is the task itself, begun at step 1. */
export function conversationOf(state: AgentState, task: string): Conversation {
  return (state.conversation ??= {
    requests: [{ n: 1, step: 1, at: 0, text: requestPreview(task) }],
    count: 1,
    waiting: false,
    requestStep: 0,
  });
}

/** The step the current request may not go beyond: each request of a conversation gets the run's maxSteps. */
export function stepLimit(state: AgentState, input: AgentInput): number {
  return (state.conversation?.requestStep ?? 0) + input.maxSteps;
}

/** The run answered (its answer is recorded) and, being a session, waits for the next request. */
export function waitForRequest(state: AgentState, input: AgentInput): void {
  conversationOf(state, input.task).waiting = true;
  state.status = 'waiting_input';
  addProgress(state, {
    kind: 'message',
    step: state.step,
    text: `answered; waiting for the next request (durable-agent continue ${state.taskId} "…")`,
  });
}

/** Whether the run waits for its next request. */
export function isWaitingForRequest(state: AgentState): boolean {
  return state.conversation?.waiting === true;
}

/**
 * A waiting run continues as new before it waits again: when Temporal suggests it, or after REQUESTS_PER_RUN requests
 * in this run (`requestsAtStart`: the count when this run began). Never with a request already queued: it begins here.
 */
export function shouldHandOverWhileWaiting(state: AgentState, requestsAtStart: number, suggested: boolean): boolean {
  if ((state.inbox?.length ?? 0) > 0) return false;
  const count = state.conversation?.count ?? 1;
  if (count === requestsAtStart) return false;
  return suggested || count - requestsAtStart >= REQUESTS_PER_RUN;
}

/** The state a waiting run continues as new with: recent progress and trace only (HANDED_OVER_PROGRESS). */
export function handOverWhileWaiting(state: AgentState): AgentState {
  const progress = state.progress.slice(-HANDED_OVER_PROGRESS);
  const recentFrom = state.events.length - HANDED_OVER_EVENTS;
  const events = state.events.filter((event, index) => index >= recentFrom || KEPT_EVENT_TYPES.has(event.type));
  return { ...state, progress, events, status: 'waiting_input' };
}

/**
 * The next request begins: the first queued message is it (the others ride along, read at the same boundary). The run
 * works again, with a fresh step limit.
 */
export function beginRequest(state: AgentState, input: AgentInput, at: number): void {
  const conversation = conversationOf(state, input.task);
  const first = state.inbox?.[0];
  conversation.count += 1;
  conversation.waiting = false;
  conversation.requestStep = state.step;
  conversation.requests.push({
    n: conversation.count,
    step: state.step + 1,
    at,
    text: requestPreview(first?.text ?? ''),
    ...(first ? { id: first.id } : {}),
  });
  if (conversation.requests.length > MAX_KEPT_REQUESTS)
    conversation.requests.splice(0, conversation.requests.length - MAX_KEPT_REQUESTS);
  state.status = 'running';
  delete state.result;
  delete state.mustCallFinalResult;
  state.resultRepairs = 0;
  addProgress(state, {
    kind: 'message',
    step: state.step,
    text: `request ${conversation.count} begins at step ${state.step + 1}: ${conversation.requests.at(-1)!.text}`,
  });
  addEvent(state, 'request_begun', at, {
    n: conversation.count,
    step: state.step + 1,
    ...(first ? { id: first.id } : {}),
  });
}

/** No request came within the idle window: the run completes with its last answer. */
export function closeIdleSession(state: AgentState, idleMs: number): void {
  state.conversation!.waiting = false;
  state.status = 'completed';
  addProgress(state, {
    kind: 'answer',
    step: state.step,
    text: `no request for ${formatDuration(idleMs)}: the conversation is closed with its last answer`,
  });
}

/** The request whose first step is `step`, for the label of that step's model call; undefined for the task's own. */
export function requestBegunAt(state: AgentState, step: number): { n: number; text: string } | undefined {
  const request = state.conversation?.requests.at(-1);
  return request && request.n > 1 && request.step === step ? request : undefined;
}

/** The statuses a closed task goes on from with `continue`, and why the others do not. */
export function continuationRefusal(state: AgentState): string | undefined {
  if (state.status === 'completed' || state.status === 'failed') return undefined;
  // Cancelled while it waited: the transcript ends with an answer. Cancelled mid-step, it may end with tool calls
  // nobody answered, which a model API rejects; fork from a step before instead.
  if (state.status === 'cancelled' && state.conversation?.waiting) return undefined;
  return `its last run ended ${state.status}${state.status === 'cancelled' ? ' in the middle of a step' : ''}; fork it from a step instead (durable-agent fork ${state.taskId} --from-step N)`;
}

/**
 * The state the next run of a closed task starts from: the task's state with the request queued (it begins when the
 * run starts, as in a waiting session). Kept: transcript, read state, tool grants, spending and budget, tools, progress.
 */
export function continuedState(previous: AgentState, task: string, request: ControlRequest, at: number): AgentState {
  const state = JSON.parse(JSON.stringify(previous)) as AgentState;
  conversationOf(state, task).waiting = true;
  state.status = 'waiting_input';
  state.runs += 1;
  delete state.error;
  queueMessage(state, request, at);
  addProgress(state, {
    kind: 'continued',
    step: state.step,
    text: `continued after its last run ended ${previous.status} (run ${state.runs + 1} of the task)`,
  });
  return state;
}

/** A request as one short line. */
export function requestPreview(text: string): string {
  const line = visibleText(text.replace(/\s+/g, ' ').trim());
  return line.length > 60 ? `${line.slice(0, 59)}…` : line;
}

/** `30m`, `2h`, `45s`: how `--idle` is written. */
export function formatDuration(ms: number): string {
  if (ms % 3_600_000 === 0) return `${ms / 3_600_000}h`;
  if (ms % 60_000 === 0) return `${ms / 60_000}m`;
  return `${Math.round(ms / 1000)}s`;
}
