// Workflow-safe: the data of the permission layer (docs/tools.md §4, §5). Plain JSON, so a Bash classification can be
// recorded in history by the activity that computes it (where the workspace is) and read back by the workflow.
import type { RiskLevel } from '../../protocol/risk-level.js';
import type { DenyCode, PermissionAction } from '../../protocol/bash-classification.js';

/** Glob lists of the file write rules (§5.1 step 4); absent lists take the defaults. */
export interface FileWritePolicy {
  writeAutoAllow?: readonly string[];
  writeProtected?: readonly string[];
}

/** A permission decision for one ready tool call (§5.1), before the ask policy is applied. */
export interface PermissionDecision {
  action: PermissionAction;
  level: RiskLevel;
  rule: string;
  reason: string;
  denyCode?: DenyCode;
  /** `network_write` approval keys this call still needs; an approval of the call stores them in the task. */
  approvalKeys: string[];
  /** The path outside the workspace, for an ACCESS_DENIED decision. */
  deniedPath?: string;
}
