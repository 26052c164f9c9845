// Workflow-safe: the agent's state as plain JSON-serialisable data, carried across continue-as-new.
// Only workflow code mutates it, and only from workflow inputs, activity results and workflow time.
import type { RunAuthorization } from '../protocol/run-authorization.js';
import type { BreakerConfig, BreakerState } from './breaker.js';
import type { ChatMessage, ModelSelection, ToolChoice, Usage } from '../protocol/model.js';
import type { PriceTable } from './price-table.js';
import type { CostLimits } from './pricing.js';
import { emptyCostLedger, recordModelCall } from './pricing.js';
import type { AgentMode } from '../protocol/agent-mode.js';
import type { ReadStateStore } from '../protocol/read-state.js';
import type { AgentResult, ProgressEntry, RunStatus, UsageLedger } from '../protocol/run-report.js';
import type { FunctionToolSpec } from '../protocol/function-tool-spec.js';
import type { McpToolDescriptor } from '../protocol/mcp.js';
import type { ContentKey } from '../protocol/content-key.js';
import type { Conversation } from '../protocol/conversation.js';
import type { McpServers } from '../protocol/mcp.js';
import type { ProfileName } from '../protocol/profile-names.js';
import type { ToolSelectionState } from './tool-selection/select-tools.js';
import type { PendingWrites, TranscriptRef } from '../protocol/transcript-ref.js';
import { EMPTY_TRANSCRIPT, appendMessages, workflowMessage } from '../protocol/transcript-ref.js';
import type { ChildRecord, SubAgentLimits, SubAgentLink } from '../protocol/sub-agents.js';
import { treeUsage } from './sub-agents/ledger.js';

/** How ASK decisions are resolved (docs/tools.md §4). */
export type AskPolicy = 'deny' | 'approve' | 'wait' | 'prompt';

/** The workflow input. Never holds secrets: API keys stay in the worker's environment. */
export interface AgentInput {
  task: string;
  /** Absolute path of the workspace on the worker's host. */
  workspace: string;
  selection: ModelSelection;
  /** Tried in order when a model call fails for good; each overrides fields of `selection`. */
  fallbackSelections?: ModelSelection[];
  maxSteps: number;
  mode: AgentMode;
  askPolicy: AskPolicy;
  /**
   * Task queue of the worker that owns the workspace: file and shell tools run there, so a run's tools never touch
   * another host's filesystem. Unset: the run's own task queue (every worker sees the same files).
   */
  toolTaskQueue?: string;
  /**
   * Names of variables of the worker's environment this run's commands get besides the allowlist (`--env-pass`).
   * Names only: the values stay on the worker and never reach history.
   */
  envPass?: string[];
  /**
   * Which tools the model may call at each step (default `auto`); the step rules override it on the last step and
   * when a structured run must call its final tool (core/run/tool-choice).
   */
  toolChoice?: ToolChoice;
  /**
   * A JSON Schema object the run's result must match: the model finishes by calling the FinalResult tool, whose
   * arguments are checked against it, and the run ends with them as `result`.
   */
  outputSchema?: Record<string, unknown>;
  /**
   * MCP servers of this run (`--mcp-config`), besides the worker's own. Unexpanded: `${VAR}` is filled in on the worker
   * when it connects, so secrets never enter the input.
   */
  mcpServers?: McpServers;
  /** Continue as new after every N steps (besides whenever Temporal suggests it). */
  continueAsNewEverySteps?: number;
  /** How long a call waits for a human decision before it counts as rejected (§4 askTimeoutMs). */
  askTimeoutMs?: number;
  /** Circuit breaker tuning (§10). */
  breaker?: Partial<BreakerConfig>;
  /** Parallel tool calls per safe batch (§3 MAX_TOOL_CONCURRENCY). */
  maxToolConcurrency?: number;
  /** Transcript size (estimated tokens) above which older turns are summarised. */
  compactAtTokens?: number;
  /** Prices (USD per 1M tokens) merged over the defaults by the CLI from DURABLE_AGENT_PRICES. */
  prices?: PriceTable;
  /** Stop spending at this many USD: the step that would exceed it asks first (or stops, with onBudget "stop"). */
  budgetUsd?: number;
  /** The same for total tokens. */
  maxTokens?: number;
  onBudget?: 'ask' | 'stop';
  /** Upsert the Agent* search attributes (the CLI checks that the namespace has them registered). */
  searchAttributes?: boolean;
  /**
   * Also pass the whole transcript through history with every model call, as a design without the content store
   * would. For `npm run bench`'s side-by-side comparison only; the CLI never sets it.
   */
  inlineTranscript?: boolean;
  /**
   * A tool profile (core/tool-selection/profiles) or `auto` for the keyword rule on the task: which tools the run
   * offers, which stay pinned, and the step limit below.
   */
  profile?: string;
  /** At most this many tools per step (default: the profile's, else 16); beyond it the step's tools are selected. */
  maxTools?: number;
  /**
   * A conversation (`run --session`): after an answer the run waits for the next request (a steering message) instead
   * of completing, and completes with its last answer once no request came for `idleMs`.
   */
  session?: { idleMs: number };
  /** Present when continuing as new: everything the task has accumulated so far. */
  resume?: AgentState;
  /** How far the run may delegate to sub-agents (the Task tool); absent: it offers no Task tool. */
  subAgents?: SubAgentLimits;
  /** Set in a sub-agent's run: where it sits in its tree (its approvals are decided at the root). */
  parent?: SubAgentLink;
  /** A sub-agent's start: the approval keys its parent remembered for its task (`approve --remember`). */
  grantedApprovals?: string[];
  /**
   * The operator's proof that they started this run (the CLI with the embedded server's key). A worker holding the key
   * runs no activity of a run without a valid one, and such a run takes only signed decisions.
   */
  authorization?: RunAuthorization;
  /**
   * Workspace checkpoints after every call that may change it (docs/checkpoints.md); on unless false. `ignore`: paths
   * not recorded besides `.gitignore` and the defaults (gitignore patterns).
   */
  checkpoints?: false | { ignore?: string[] };
}

/** The run's own checkpoint ignore patterns (besides .gitignore and the defaults); none when it has none. */
export function checkpointIgnore(input: Pick<AgentInput, 'checkpoints'>): string[] | undefined {
  const ignore = input.checkpoints ? input.checkpoints.ignore : undefined;
  return ignore?.length ? ignore : undefined;
}

/** An operator's message (core/run/inbox) taken and not read by the model yet. */
export interface QueuedMessage {
  id: string;
  text: string;
  sentBy?: string;
  /** Workflow time it was taken, and the step under way then. */
  at: number;
  step: number;
}

/** Everything a task accumulates. */
export interface AgentState {
  taskId: string;
  status: RunStatus;
  step: number;
  /** The transcript by key: every message lives once in the content store. */
  transcript: TranscriptRef;
  /** Content the workflow made that the next transcript-reading activity stores (then it is forgotten here). */
  pendingWrites: PendingWrites;
  readState: ReadStateStore;
  /** A path as the model wrote it (workspace-relative, normalised) → its read-state key (symlinks resolved). */
  readStateAliases: Record<string, string>;
  usage: UsageLedger;
  toolCalls: number;
  /** The workspace as the last call that may have changed it left it (a checkpoint's key). */
  checkpoint?: ContentKey;
  /** The head of the run's checkpoint log (protocol/tool-activity CheckpointLogEntry): every checkpoint, for `gc`. */
  checkpointLog?: ContentKey;
  /**
   * A call that may have changed files left no checkpoint since `checkpoint` (its worker was lost, it was interrupted):
   * the files may differ from it, so the next call's checkpoint is taken whole, never updated along one path.
   */
  checkpointStale?: boolean;
  answer?: string;
  /** A structured run's result: the FinalResult arguments that matched the output schema. */
  result?: unknown;
  /** Set after a step that should have called FinalResult and did not: the next step must call it. */
  mustCallFinalResult?: boolean;
  /** Invalid FinalResult calls sent back to the model for repair. */
  resultRepairs?: number;
  error?: string;
  lastTool?: string;
  progress: ProgressEntry[];
  progressSeq: number;
  /** Function tools of the worker, recorded when the task started (§12). */
  functionTools: FunctionToolSpec[];
  /** The MCP servers' tools, recorded when the task started; absent when it has none. */
  mcp?: McpToolset;
  /** Deferred tools found through ToolSearch (§16); with a selection, any tool it found. */
  discovered: string[];
  /** The run's tool profile, resolved when the task started, and why (`chosen`, or what the auto rule matched). */
  profile?: { name: ProfileName; reason: string };
  /** What the tool selection keeps between steps; set from the first step with more tools than the limit. */
  toolSelection?: ToolSelectionState;
  /** Per-tool circuit breakers (§10), timed by workflow time. */
  breakers: Record<string, BreakerState>;
  /** network_write approval keys granted for the rest of the task (§4). */
  approvals: string[];
  /** Recent trace events (§3), bounded like progress. */
  events: TraceEvent[];
  /** How many times the task continued as new. */
  runs: number;
  /** The cost limits in force (recorded as `budget`); an operator's approval extends them by the original amounts. */
  budget: CostLimits;
  /** The model that answered last (AgentModel search attribute). */
  model?: string;
  /** The transcript's content, kept only under `inlineTranscript` (the bench's comparison). */
  inlineMessages?: ChatMessage[];
  /** The operator's messages taken and not read by the model yet, oldest first (core/run/inbox). */
  inbox?: QueuedMessage[];
  /** Ids of the control messages the task took (bounded), so each applies once however often it is delivered. */
  controlIds?: string[];
  /** Set by a pause (core/run/pause): the run waits at its next step boundary until a resume clears it. */
  pause?: PauseRequest;
  /** The task's requests, once it is a conversation (a session, or a run continued after it closed). */
  conversation?: Conversation;
  /** The sub-agents the task started, by segment (`task-3-0`), with what each reported last. */
  children?: Record<string, ChildRecord>;
  /** How many sub-agents the task started in all (the fan-out limit counts them). */
  childrenStarted?: number;
  /** The number of the last report this run sent its parent (a sub-agent's). */
  reportSeq?: number;
}

/** An operator's pause, taken and not resumed yet. */
export interface PauseRequest {
  id: string;
  reason?: string;
  sentBy?: string;
  /** Workflow time it was taken; set `since` once the run stopped at a step boundary. */
  at: number;
  since?: number;
}

/**
 * The MCP tools of a task: their descriptors (the workflow's registry is built from them) and the key of the stored
 * catalog the worker resolves schemas and servers from, so requests carry that key instead of the schemas.
 */
export interface McpToolset {
  catalog: ContentKey;
  tools: McpToolDescriptor[];
}

/** A trace event of §3 (tool_orchestration_plan, permission_decision, circuit_state_change, …). */
export interface TraceEvent {
  type: string;
  step: number;
  at: number;
  data: Record<string, unknown>;
}

/** Keeps the trace bounded in workflow memory and history. */
export const MAX_TRACE_EVENTS = 1000;

/** Records a trace event. */
export function addEvent(state: AgentState, type: string, at: number, data: Record<string, unknown>): void {
  state.events.push({ type, step: state.step, at, data });
  if (state.events.length > MAX_TRACE_EVENTS) state.events.splice(0, state.events.length - MAX_TRACE_EVENTS);
}

/** Keeps follower progress bounded in workflow memory. */
export const MAX_PROGRESS_ENTRIES = 500;
/** How many of the last progress lines a run's result carries: those of its last steps (a follower that missed more asks). */
export const RESULT_PROGRESS_ENTRIES = 20;

/** A ledger with nothing spent. */
export function emptyUsage(): UsageLedger {
  return { ...emptyCostLedger(), retriedCalls: 0, schemaTokens: 0 };
}

/** A fresh state for a new task. */
export function initialState(taskId: string, systemPrompt: string, task: string): AgentState {
  const pendingWrites: PendingWrites = {};
  const system = workflowMessage({ role: 'system', content: systemPrompt }, pendingWrites);
  const user = workflowMessage({ role: 'user', content: task }, pendingWrites);
  const transcript = appendMessages(
    EMPTY_TRANSCRIPT,
    [
      { ...system, role: 'system' },
      { ...user, role: 'user' },
    ],
    pendingWrites,
  );
  return {
    taskId,
    status: 'running',
    step: 0,
    transcript,
    pendingWrites,
    readState: {},
    readStateAliases: {},
    usage: emptyUsage(),
    toolCalls: 0,
    progress: [],
    progressSeq: 0,
    functionTools: [],
    discovered: [],
    breakers: {},
    approvals: [],
    events: [],
    runs: 0,
    budget: {},
  };
}

/** Appends a progress entry, dropping the oldest beyond the bound. */
export function addProgress(state: AgentState, entry: Omit<ProgressEntry, 'seq'>): void {
  state.progressSeq += 1;
  state.progress.push({ ...entry, seq: state.progressSeq });
  if (state.progress.length > MAX_PROGRESS_ENTRIES)
    state.progress.splice(0, state.progress.length - MAX_PROGRESS_ENTRIES);
}

/** Adds one model call's usage and cost to the ledger. */
export function addUsage(state: AgentState, usage: Usage, model: string, attempt: number, prices?: PriceTable): void {
  const ledger = recordModelCall(state.usage, usage, model, prices);
  state.usage = {
    ...ledger,
    retriedCalls: state.usage.retriedCalls + Math.max(0, attempt - 1),
    schemaTokens: state.usage.schemaTokens + (usage.schemaTokens ?? 0),
  };
  state.model = model;
}

/** The result object of a finished (or stopped) task. */
export function toResult(state: AgentState, input?: Pick<AgentInput, 'parent'>): AgentResult {
  return {
    status: state.status,
    answer: state.answer ?? null,
    ...(state.result !== undefined ? { result: state.result } : {}),
    steps: state.step,
    toolCalls: state.toolCalls,
    usage: state.usage,
    ...(state.error ? { error: state.error } : {}),
    ...(state.profile ? { profile: state.profile.name } : {}),
    // A run with children reports its tree's spending too; a child, where its parent can read its whole transcript.
    ...(state.children ? { totalUsage: treeUsage(state) } : {}),
    ...(input?.parent && state.transcript.head ? { transcript: state.transcript.head } : {}),
    // Not a child's: its result is recorded in its parent's history, which must not grow with the child's steps.
    ...(!input?.parent && state.progress.length > 0
      ? { lastProgress: state.progress.slice(-RESULT_PROGRESS_ENTRIES) }
      : {}),
  };
}
