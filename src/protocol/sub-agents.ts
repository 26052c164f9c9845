// Workflow-safe: sub-agents (the Task tool) as they cross the boundary between a run and the child workflows it
// starts: the link a child carries in its input, the report it sends its parent, and the limits a run starts them by.
import { defineSignal } from '@temporalio/workflow';
import type { PendingApproval } from './approval.js';
import type { RunStatus, UsageLedger } from './run-report.js';

/** Where a child run sits in its tree. Carried in its input, so continue-as-new keeps it. */
export interface SubAgentLink {
  /** The workflow id of the run the operator started (approvals are decided there). */
  rootWorkflowId: string;
  parentWorkflowId: string;
  /**
   * The child's place under the root, one segment per level (`task-3-0/task-2-1`): the prefix of the ids its approvals
   * are decided by at the root, and (after the root's id) its own workflow id.
   */
  path: string;
  /** 1 for a child of the root. */
  depth: number;
}

/** How far a run may delegate (`run --sub-agents`); a child inherits its parent's. */
export interface SubAgentLimits {
  /** The deepest level a child may be at (0: no Task tool). */
  maxDepth: number;
  /** Children one run may start in all (across continue-as-new). */
  maxChildren: number;
  /** The most steps a child may take (the Task call may ask for fewer). */
  maxSteps: number;
  /** How long a child may run before its parent cancels it. */
  timeoutMs: number;
}

/** What a child tells its parent while it runs: sent when it changes (usage at most every few seconds). */
export interface ChildReport {
  /** The child's segment under its parent (`task-3-0`). */
  segment: string;
  /** Grows with every report, so a late or repeated one never overwrites a newer one. */
  seq: number;
  status: RunStatus;
  step: number;
  /** What the child and its descendants spent, retries included. */
  usage: UsageLedger;
  /** The approvals the child and its descendants wait for, by the ids the root decides them by. */
  pending: PendingApproval[];
}

/** Signal `childReport`: a child's progress, spending and pending approvals, sent to its parent. */
export const childReport = defineSignal<[ChildReport]>('childReport');

/** What a run keeps of one child it started (the `state` query shows it; `status` and `history` print it). */
export interface ChildRecord {
  segment: string;
  workflowId: string;
  /** The Task call that started it. */
  callId: string;
  step: number;
  description: string;
  profile: string;
  status: RunStatus;
  childStep: number;
  usage: UsageLedger;
  pending: PendingApproval[];
  seq: number;
  /** What the child was allotted of the parent's budget when it started. */
  budgetUsd?: number;
  maxTokens?: number;
  startedAt: number;
  endedAt?: number;
}

/** What a signed run asks its worker to sign for a sub-agent: the child's workflow id and its input (less the proof). */
export interface SignChildRunRequest {
  workflowId: string;
  input: object;
}
