import type { ContentKey } from './content-key.js';
import type { Envelope, Repair } from './envelope.js';
import type { ReadStateStore, ReadStateUpdate } from './read-state.js';
import type { FallbackNote, ToolOutcome } from './tool-outcome.js';
import type { MessageRef } from './transcript-ref.js';
import type { RiskLevel } from './risk-level.js';
import type { ChangeCounts } from './checkpoint.js';

/** The input of every tool activity. Validated, repaired arguments only; never secrets. */
export interface ToolActivityInput {
  taskId: string;
  /** The step the call belongs to (the field keeps its recorded name: `turn`). */
  turn: number;
  index: number;
  callId: string;
  /** Absolute workspace root of the run; the executor resolves its realpath. */
  workspace: string;
  /** Validated input with defaults applied; string values may be references to stored content (huge arguments). */
  input: Record<string, unknown>;
  /** Normalised input echoed in the envelope (abbreviated). */
  paramsInput: Record<string, unknown>;
  repairs?: Repair[];
  ignoredParams?: string[];
  /** The read-state entries for this call's path; sent to the tools that read or write it (ReadFile, WriteFile, EditFile). */
  readState?: ReadStateStore;
  /** The activity's retry limit, so the executor wrapper knows which attempt is the last one. */
  maximumAttempts?: number;
  /** Names of worker variables this run's commands get besides the allowlist (`--env-pass`; never values). */
  envPass?: string[];
  /**
   * The permission decision's level and rule (docs/tools.md §5), echoed by Bash as `data.classification`; for a
   * `network_write` command also the hosts its approval covers, which its network proxy lets through
   * (BashClassification.networkHosts).
   */
  classification?: { level: RiskLevel; rule: string; networkHosts?: string[] };
  /**
   * Set when the operator approved this very call after it asked (§4): a Bash command then may write the workspace's
   * protected paths (`.git`, `.agent`, the protected list), which are read-only in the sandbox otherwise.
   */
  approved?: boolean;
  /**
   * The run's protected write patterns when it has its own (§5.1 step 4; default DEFAULT_WRITE_PROTECTED): a file
   * tool matches the path a write really lands on against them, links resolved, and Bash's sandbox mounts what they
   * name read-only.
   */
  writeProtected?: string[];
  /** An MCP tool's call: the task's stored catalog and the tool's registry name in it. */
  mcp?: { catalog: ContentKey; tool: string };
  /** Set when this call serves a failing tool's call: the envelope says so unless it is an error itself. */
  fallback?: FallbackNote;
  /**
   * A read tried as a local activity of a run pinned to this tool queue: it runs only on the worker that owns the
   * queue's workspaces, and anywhere else answers `{ elsewhere: true }` without touching a file.
   */
  onlyOnHost?: string;
  /**
   * Set on a call that may change the workspace (any tool that is not a read): the tool host records the workspace
   * in the content store after the call (docs/checkpoints.md). `previous` is the run's last checkpoint; without one
   * the host records the workspace before the call too, so the call's changes are known from the first. `log`: the
   * run's checkpoint log (CheckpointLogEntry), which the call's entry extends. `whole`: the files may differ from
   * `previous` (a call since left none), so the call's checkpoint is taken whole. `ignore`: the run's own patterns
   * besides `.gitignore` and the defaults.
   */
  checkpoint?: { previous: ContentKey | null; log: ContentKey | null; whole?: true; ignore?: string[] };
}

/** What an executor produces: the envelope (within the per-result budget once runTool is done) and any store change. */
export interface ToolActivityResult {
  envelope: Envelope;
  readStateUpdate?: ReadStateUpdate;
}

/** A local read that landed on a worker not owning the run's workspace: the workflow sends it to the right host. */
export interface ElsewhereResult {
  elsewhere: true;
}

/** What a tool activity returns: the tool message, stored once, and the summary the workflow decides on. */
export interface StoredToolResult {
  /** Which call this answers (a local activity's marker records no input, so `history` reads it here). */
  call: { callId: string; turn: number; index: number };
  message: MessageRef;
  outcome: ToolOutcome;
  readStateUpdate?: ReadStateUpdate;
  /** The workspace before and after the call, as checkpoints, and how many files it changed. */
  checkpoint?: CallCheckpoint;
}

/** The checkpoints around one call that may change the workspace. */
export interface CallCheckpoint {
  before: ContentKey;
  after: ContentKey;
  changes: ChangeCounts;
  /** The run's checkpoint log with this call's entry at its head. */
  log: ContentKey;
}

/**
 * One entry of a run's checkpoint log, stored by content key: each names the one before, so the log's head in the run's
 * state keeps every checkpoint of the run (and of its forks, which start from it) reachable for `gc`.
 */
export interface CheckpointLogEntry {
  checkpointLog: 1;
  prev: ContentKey | null;
  step: number;
  callId: string;
  before: ContentKey;
  after: ContentKey;
}

/** Temporal activity settings for one tool (§14); every tool activity also heartbeats (HEARTBEAT_TIMEOUT_MS). */
export interface ToolActivityPolicy {
  startToCloseTimeoutMs: number;
  maximumAttempts: number;
}

/**
 * How long a model or tool activity may go without a heartbeat before the server counts its worker as lost and tries
 * again elsewhere (or, for a call that runs once, tells the model): a killed worker is noticed within these 3 s, not
 * when a start-to-close limit of minutes runs out. Three heartbeat intervals: a worker whose event loop is held up
 * for up to 2 s under load is not mistaken for a lost one.
 */
export const HEARTBEAT_TIMEOUT_MS = 3_000;

/**
 * How often a running activity heartbeats, whatever it is doing — waiting for a first token, a silent command, a
 * slow write; the worker's throttle (maxHeartbeatThrottleInterval) sends them on at the same pace.
 */
export const HEARTBEAT_INTERVAL_MS = 1_000;

/**
 * The bound of a read tried in the workflow's own worker (a local activity): the workflow task stays open while it
 * runs, so a read that takes longer is stopped and runs again as an ordinary activity, and no workflow task holds
 * queries, approvals and cancellations back for longer than this.
 */
export const LOCAL_READ_BOUND_MS = 400;
