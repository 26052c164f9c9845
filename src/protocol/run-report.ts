// Workflow-safe: what a run reports to whoever follows it: its status, its progress lines, what it spent and its result
// (the workflow's result, the `state` query's view, the CLI's `--json`).

/**
 * Run statuses of docs/architecture.md#cli-contract (also the `AgentStatus` search attribute). `continued` ends a run
 * that handed its task on to the next run of the chain (continue-as-new). `terminated` and `timed_out` are endings the
 * workflow cannot see: the CLI reads them from the server's execution status.
 */
export type RunStatus =
  | 'running'
  | 'waiting_approval'
  | 'paused'
  | 'waiting_input'
  | 'completed'
  | 'failed'
  | 'cancelled'
  | 'terminated'
  | 'timed_out'
  | 'continued';

/** The statuses of a run that has ended, or is ending: it takes no more control messages and reports nothing more. */
export const ENDED_STATUSES: ReadonlySet<RunStatus> = new Set<RunStatus>([
  'completed',
  'failed',
  'cancelled',
  'terminated',
  'timed_out',
]);

/** Usage and cost summed over every model call of a task. Plain JSON: carried across continue-as-new. */
export interface CostLedger {
  promptTokens: number;
  completionTokens: number;
  cachedTokens: number;
  totalTokens: number;
  modelCalls: number;
  costUsd: number;
  /** Prompt tokens of the most recent call: the base of the next estimate. */
  lastPromptTokens: number;
  /** Models that had no price; their calls were counted at 0 USD. */
  unpricedModels: string[];
}

/** One line of progress for followers (`run`, `watch`). */
export interface ProgressEntry {
  seq: number;
  kind: 'step' | 'tool' | 'approval' | 'answer' | 'error' | 'continued' | 'message' | 'control';
  step: number;
  text: string;
  tool?: string;
  status?: string;
  ms?: number;
  /** The error message of a failed tool call. */
  detail?: string;
}

/** Usage and cost summed over every model call of the task. */
export interface UsageLedger extends CostLedger {
  /** Model-call attempts that failed and were retried by Temporal (their tokens, if any, are not reported). */
  retriedCalls: number;
  /** Tokens of the tool lists sent (already part of promptTokens). */
  schemaTokens: number;
}

/** The workflow result, and the CLI's `--json` object minus the ids. */
export interface AgentResult {
  status: RunStatus;
  answer: string | null;
  /** A structured run's result (the JSON value that matched `outputSchema`). */
  result?: unknown;
  steps: number;
  toolCalls: number;
  usage: UsageLedger;
  error?: string;
  /** The run's tool profile, when it has one. */
  profile?: string;
  /** A run that started sub-agents: its own usage plus every descendant's (`usage` is its own). */
  totalUsage?: UsageLedger;
  /** A sub-agent's run: the key of its transcript's newest node (`durable-agent output` expands it). */
  transcript?: string;
  /**
   * The run's last progress lines (RESULT_PROGRESS_ENTRIES at most; none for a sub-agent): a follower that has seen the
   * lines before them prints the rest from here, instead of asking the finished run, which a worker would have to
   * replay to answer.
   */
  lastProgress?: ProgressEntry[];
}
