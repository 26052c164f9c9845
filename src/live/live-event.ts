// Node: the events of live model output — what a model call streams while it runs, outside workflow history.
/** Which model call and which attempt a chunk belongs to. */
export interface LiveCallIdentity {
  workflowId: string;
  /** A continued run has a new runId; activity ids restart per run. */
  runId: string;
  /** The callModel activity's id in that run. */
  activityId: string;
  /** The run's step (ModelRequest.step). */
  step: number;
  /** Temporal's activity attempt, 1-based. */
  attempt: number;
  purpose: 'step' | 'compaction';
}

/** One chunk of a model's answer as it streams. */
export type LiveDelta =
  | { kind: 'text'; text: string }
  /** Reasoning summaries where the API streams them. */
  | { kind: 'reasoning'; text: string }
  | { kind: 'tool_call'; index: number; id?: string; name: string }
  | { kind: 'tool_arguments'; index: number; text: string };

/** One event of a call attempt; `seq` counts per (runId, activityId, attempt) from 0, `at` is epoch ms when published. */
export type LiveEvent = LiveCallIdentity & { seq: number; at: number } & (
    | { kind: 'start'; model: string }
    | LiveDelta
    | { kind: 'end'; finishReason: string }
    /** This attempt threw (the activity's classified message). */
    | { kind: 'failed'; error: string }
    /** Published by attempt N>1 before its start: attempts < N are void. */
    | { kind: 'superseded'; supersededAttempt: number }
  );
