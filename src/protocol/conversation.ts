// Workflow-safe: the requests of a conversation — a task that goes on after its answers (core/run/session) — as the
// run keeps them and its `state` query shows them.

/** One request of a conversation: the task itself, then each follow-up. */
export interface ConversationRequest {
  /** 1 for the task, then counting up over the whole task. */
  n: number;
  /** The first step of the request (its first model call). */
  step: number;
  /** Workflow time it began (0 for the task: it began with the run). */
  at: number;
  /** The request's first line, shortened (the transcript has it whole). */
  text: string;
  /** The control message id it came as; absent for the task. */
  id?: string;
}

/** The requests of a task that goes on after its answers. */
export interface Conversation {
  /** The latest requests, oldest first (bounded: `count` says how many there were). */
  requests: ConversationRequest[];
  count: number;
  /** The run answered and waits for the next request. */
  waiting: boolean;
  /** `state.step` when the current request began: each request gets the run's maxSteps from there. */
  requestStep: number;
}
