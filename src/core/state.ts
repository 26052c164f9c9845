// Sandbox-safe: the agent's state as plain JSON-serialisable data, carried across continue-as-new.
// Only workflow code mutates it, and only from workflow inputs, activity results and workflow time.
import type { ChatMessage, ModelSelection, Usage } from './messages.js';
import type { ReadStateStore } from './read-state.js';

/** Run statuses of DESIGN.md (also the `AgentStatus` search attribute). */
export type RunStatus = 'running' | 'waiting_approval' | 'completed' | 'failed' | 'cancelled';

/** Tool exposure mode (C.4). */
export type AgentMode = 'default' | 'read_only';

/** How ASK decisions are resolved (C.4). */
export type AskPolicy = 'deny' | 'approve' | 'wait' | 'prompt';

/** The workflow input. Never holds secrets: API keys stay in the worker's environment. */
export interface AgentInput {
  task: string;
  /** Absolute path of the workspace on the worker's host. */
  workspace: string;
  selection: ModelSelection;
  maxSteps: number;
  mode: AgentMode;
  askPolicy: AskPolicy;
  /** Present when continuing as new: everything the task has accumulated so far. */
  resume?: AgentState;
}

/** One line of progress for followers (`run`, `watch`). */
export interface ProgressEntry {
  seq: number;
  kind: 'step' | 'tool' | 'answer' | 'error';
  step: number;
  text: string;
  tool?: string;
  status?: string;
  ms?: number;
  /** The error message of a failed tool call. */
  detail?: string;
}

/** Usage summed over every model call of the task. */
export interface UsageLedger extends Usage {
  modelCalls: number;
}

/** Everything a task accumulates. */
export interface AgentState {
  taskId: string;
  status: RunStatus;
  step: number;
  messages: ChatMessage[];
  readState: ReadStateStore;
  usage: UsageLedger;
  toolCalls: number;
  answer?: string;
  error?: string;
  lastTool?: string;
  progress: ProgressEntry[];
  progressSeq: number;
}

/** The workflow result, and the CLI's `--json` object minus the ids. */
export interface AgentResult {
  status: RunStatus;
  answer: string | null;
  steps: number;
  toolCalls: number;
  usage: UsageLedger;
  error?: string;
}

/** Keeps follower progress bounded in workflow memory. */
export const MAX_PROGRESS_ENTRIES = 500;

/** A fresh state for a new task. */
export function initialState(taskId: string, systemPrompt: string, task: string): AgentState {
  return {
    taskId,
    status: 'running',
    step: 0,
    messages: [
      { role: 'system', content: systemPrompt },
      { role: 'user', content: task },
    ],
    readState: {},
    usage: { promptTokens: 0, completionTokens: 0, totalTokens: 0, modelCalls: 0 },
    toolCalls: 0,
    progress: [],
    progressSeq: 0,
  };
}

/** Appends a progress entry, dropping the oldest beyond the bound. */
export function addProgress(state: AgentState, entry: Omit<ProgressEntry, 'seq'>): void {
  state.progressSeq += 1;
  state.progress.push({ ...entry, seq: state.progressSeq });
  if (state.progress.length > MAX_PROGRESS_ENTRIES) state.progress.splice(0, state.progress.length - MAX_PROGRESS_ENTRIES);
}

/** Adds one model call's usage to the ledger. */
export function addUsage(state: AgentState, usage: Usage): void {
  state.usage.promptTokens += usage.promptTokens;
  state.usage.completionTokens += usage.completionTokens;
  state.usage.totalTokens += usage.totalTokens;
  state.usage.modelCalls += 1;
}

/** The result object of a finished (or stopped) task. */
export function toResult(state: AgentState): AgentResult {
  return {
    status: state.status,
    answer: state.answer ?? null,
    steps: state.step,
    toolCalls: state.toolCalls,
    usage: state.usage,
    ...(state.error ? { error: state.error } : {}),
  };
}
