// Sandbox-safe: message definitions shared by the workflow and the CLI (defined once, at module scope).
import { defineQuery } from '@temporalio/workflow';
import type { ChatMessage } from '../core/messages.js';
import type { AgentResult, ProgressEntry, RunStatus, UsageLedger } from '../core/state.js';

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
  result?: AgentResult;
}

/** Query `state`: step, status, usage and recent progress lines (those after `afterSeq`). */
export const stateQuery = defineQuery<AgentStateView, [afterSeq?: number]>('state');

/** Query `transcript`: the messages the model has seen so far. */
export const transcriptQuery = defineQuery<ChatMessage[]>('transcript');
