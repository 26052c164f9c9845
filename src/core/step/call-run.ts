// Workflow-safe: one tool call in flight as plain data (the phases of call.ts's state machine) and what it needs from the
// outside world next.
import type { ToolActivityInput, ToolActivityPolicy } from '../../protocol/tool-activity.js';
import type { ToolContract } from '../../tools/define-tool.js';
import type { PendingApproval } from '../../protocol/approval.js';
import type { EnvelopeContext } from '../../protocol/envelope.js';
import type { PermissionDecision } from '../permissions/index.js';
import type { BashClassification } from '../../protocol/bash-classification.js';
import type { FallbackNote } from '../../protocol/tool-outcome.js';
import type { ToolResult } from './step-env.js';
import type { TaskArguments } from '../sub-agents/child-start.js';

/** One attempt at a call (the primary tool or a fallback): its result, and whether a tool actually ran. */
export interface Attempt {
  result: ToolResult;
  ran: boolean;
  circuitOpen: boolean;
}

/** Where a call is: gemini-cli's scheduler status union, with the fallback chain folded in. */
export type CallPhase = 'gate' | 'classify' | 'decide' | 'awaiting_approval' | 'run' | 'done';

/** One call in flight. Plain data; `nextNeed` and the `on…` functions move it along. */
export interface CallRun {
  callId: string;
  index: number;
  started: number;
  phase: CallPhase;
  /** The tool of the current attempt: the primary, or the fallback serving it. */
  tool: ToolContract;
  input: Record<string, unknown>;
  context: EnvelopeContext;
  primaryTool: ToolContract;
  primaryInput: Record<string, unknown>;
  /** The primary call's arguments as echoed in envelopes: the progress line names the call as the model made it. */
  primaryParams: Record<string, unknown>;
  /** The current attempt was sent to the workflow's own worker first. */
  local: boolean;
  /** Set on a fallback attempt: its envelope says which tool served the call and why. */
  fallback?: FallbackNote;
  /** How many of the primary tool's fallbacks were looked at. */
  fallbacksSeen: number;
  primary?: Attempt;
  classification?: BashClassification;
  permission?: PermissionDecision;
  /** The lexical workspace-relative path of a `path` argument (read state and file rules). */
  lexicalPath?: string;
  result?: ToolResult;
  /** Since when the call waits for a human, and how long it waited in all: not the tool's own time. */
  awaitingSince?: number;
  waitedMs?: number;
  /** The run's baseline checkpoint was asked for (taken or not, it is not asked again for this call). */
  baselineAsked?: boolean;
}

/** What a call needs from the outside world next. */
export type CallNeed =
  | { type: 'classify'; command: string; cwd: string; workspace: string; taskQueue?: string; summary: string }
  | { type: 'approval'; request: PendingApproval; timeoutMs: number }
  | {
      type: 'activity';
      /** The activity type: the tool's name, or the one activity its kind runs through (MCP). */
      tool: string;
      policy: ToolActivityPolicy;
      request: ToolActivityInput;
      summary: string;
      /** Try it in the workflow's own worker first (a short read); the answer may be `elsewhere`. */
      local: boolean;
      taskQueue?: string;
    }
  /**
   * The run's files before its first call that may change them, recorded by their own activity where the workspace is:
   * a call whose worker is lost still has a checkpoint before it, so the next call's covers what it changed.
   */
  | { type: 'baseline'; workspace: string; ignore?: string[]; taskQueue?: string; summary: string }
  /** A Task call: a sub-agent to start as a child workflow (core/sub-agents/child-start). */
  | { type: 'child'; index: number; args: TaskArguments }
  | { type: 'done'; result: ToolResult };
