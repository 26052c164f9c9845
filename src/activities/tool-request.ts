import type { Envelope, Repair } from '../core/envelope.js';
import type { ReadStateStore, ReadStateUpdate } from '../core/read-state.js';
import type { RiskLevel } from '../tools/define-tool.js';

/** The input of every tool activity. Validated, repaired arguments only; never secrets. */
export interface ToolActivityInput {
  taskId: string;
  turn: number;
  index: number;
  callId: string;
  /** Absolute workspace root of the run; the executor resolves its realpath. */
  workspace: string;
  /** Validated input with defaults applied. */
  input: Record<string, unknown>;
  /** Normalised input echoed in the envelope (abbreviated). */
  paramsInput: Record<string, unknown>;
  repairs?: Repair[];
  ignoredParams?: string[];
  /** The task's read-state store; sent to the tools that read or write it (ReadFile, WriteFile, EditFile). */
  readState?: ReadStateStore;
  /** The activity's retry limit, so the executor wrapper knows which attempt is the last one. */
  maximumAttempts?: number;
  /** The permission decision's level and rule (C.5), echoed by Bash as `data.classification`. */
  classification?: { level: RiskLevel; rule: string };
}

/** What a tool activity returns: the envelope (already within the per-result budget) and any store change. */
export interface ToolActivityResult {
  envelope: Envelope;
  readStateUpdate?: ReadStateUpdate;
}
