// Node: what a tool executor is given and returns: the request, the workspace, the worker's data directory, the store,
// and Temporal's heartbeat and cancellation, gathered by run-tool.ts for each attempt.
import type { EnvelopeContext } from '../../protocol/envelope.js';
import type { ContentStore } from '../../store/content-store.js';
import type { ToolActivityInput, ToolActivityResult } from '../../protocol/tool-activity.js';

/** Everything an executor needs; built once per activity attempt by activities/run-tool.ts. */
export interface ExecutorContext {
  /** Real (symlink-resolved) absolute workspace root W. */
  root: string;
  request: ToolActivityInput;
  /** Envelope context pre-filled with tool_call_id, cwd ".", params_input, repairs, ignored_params. */
  context: EnvelopeContext;
  /** Aborted when Temporal cancels the activity. */
  signal: AbortSignal;
  /** Records a heartbeat (no-op outside an activity). */
  heartbeat(details?: unknown): void;
  /** 1 on the first attempt. */
  attempt: number;
  /** Stable across retries of the same activity (used for the write journal, docs/tools.md §8 durable retry). */
  activityKey: string;
  /** `W/.agent/tool-output/<taskId>`: where spill files go. */
  outputDir: string;
  /**
   * The worker's own directory for this workspace (worker-data.ts): outside W, so no command can plant a link in it.
   * The write journal and the commands' HOME live under it.
   */
  dataDir: string;
  /** The content store spilled outputs also go to (absent when executors run on their own, in tests). */
  store?: ContentStore;
  /**
   * Runs when a write's new bytes are durable in the temp file beside `rel` and its journal record is written, just
   * before they replace the file. Unset by default; an executor wrapper sets it to observe (or, in fault tests, stop
   * the worker at) the one moment a crash leaves both the old file and the new bytes on disk.
   */
  beforeCommit?(rel: string): Promise<void>;
  /** Milliseconds since the executor started. */
  elapsedMs(): number;
}

/** Runs one tool call. Returns model-actionable problems as envelopes; throws only for infrastructure failures. */
export type ToolExecutor = (context: ExecutorContext) => Promise<ToolActivityResult>;
