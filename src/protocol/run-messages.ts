// Workflow-safe: message definitions shared by the workflow and the CLI (defined once, at module scope).
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { TranscriptRef } from './transcript-ref.js';
import type { Conversation } from './conversation.js';
import type { ChildRecord, SubAgentLink } from './sub-agents.js';
import type { ApprovalDecision, ApprovalOutcome, PendingApproval } from './approval.js';
import type { AgentResult, ProgressEntry, RunStatus, UsageLedger } from './run-report.js';

/** Breaker state of one tool, as shown to operators. */
export interface BreakerView {
  state: 'CLOSED' | 'OPEN' | 'HALF_OPEN';
  failures: number;
  openedAt?: number;
  lastError?: string;
}

/** Live state of a run, answered while it works or waits. */
export interface AgentStateView {
  taskId: string;
  status: RunStatus;
  step: number;
  maxSteps: number;
  toolCalls: number;
  usage: UsageLedger;
  answer: string | null;
  error?: string;
  lastTool?: string;
  progress: ProgressEntry[];
  pendingApprovals: PendingApproval[];
  breakers: Record<string, BreakerView>;
  result?: AgentResult;
  /** The run's tool profile and why it has it (`chosen`, or what `auto` matched). */
  profile?: { name: string; reason: string };
  /** Approvals and rejections the run refused because its operator did not sign them, oldest first. */
  refusedDecisions?: string[];
  /** A conversation's requests, and whether the run waits for the next one. */
  conversation?: Conversation;
  /** The sub-agents the run started (Task calls), with what each reported last. */
  children?: ChildRecord[];
  /** A run with sub-agents: its usage plus its descendants' (the AgentCostUsd it publishes). */
  totalUsage?: UsageLedger;
  /** A sub-agent: where it sits in its tree. */
  parent?: SubAgentLink;
}

/** Query `state`: step, status, usage, approvals, breakers and recent progress lines (those after `afterSeq`). */
export const stateQuery = defineQuery<AgentStateView, [afterSeq?: number]>('state');

/** Query `transcript`: the transcript by key (`durable-agent output` and the store expand it). */
export const transcriptQuery = defineQuery<TranscriptRef>('transcript');

/**
 * Query `storeRoots`: every content key the run's state refers to (transcript head, stored answers, …). Content
 * reachable from these keys is live; `durable-agent gc` keeps it.
 */
export const storeRootsQuery = defineQuery<string[]>('storeRoots');

/** Update `approveToolCall`: validated against the pending ids; rejected for unknown or already-decided calls. */
export const approveToolCall = defineUpdate<ApprovalOutcome, [ApprovalDecision]>('approveToolCall');

/** Signal `toolDecision`: the same decision, for senders that cannot wait for an answer (Web UI, temporal CLI). */
export const toolDecision = defineSignal<[ApprovalDecision]>('toolDecision');
