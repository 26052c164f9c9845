// Sandbox-safe: the data of the permission layer (TOOL-SPEC C.4, C.5). Plain JSON, so a Bash classification can be
// recorded in history by the activity that computes it (where the workspace is) and read back by the workflow.
import type { RiskLevel } from '../../tools/define-tool.js';

/** What the policy does with a call before the ask policy applies (C.4). */
export type PermissionAction = 'allow' | 'ask' | 'deny';

/** The error code of a DENY: policy (`PERMISSION_DENIED`) or workspace boundary (`ACCESS_DENIED`). */
export type DenyCode = 'PERMISSION_DENIED' | 'ACCESS_DENIED';

/** The execution mode of a task (C.4). */
export type PermissionMode = 'default' | 'read_only';

/** Glob lists of the file write rules (C.5.1 step 4); absent lists take the defaults. */
export interface FileWritePolicy {
  writeAutoAllow?: readonly string[];
  writeProtected?: readonly string[];
}

/** One segment of a Bash command (split at `;` `&&` `||` `|` `&` and newlines, C.5.2) with its own level and action. */
export interface BashSegment {
  /** The segment's source text (an inner script's text for `sh -c` and command substitutions). */
  text: string;
  level: RiskLevel;
  rule: string;
  /** Short human reason, used in the "requires confirmation" text. */
  reason: string;
  action: PermissionAction;
  /**
   * Set on `network_write` segments whose only reason to ask is the network: an approval of this key covers them. It
   * names the command and every host it reaches (`curl a.com b.com`), or the class when the hosts come from
   * configuration (`npm install`, `git push` to a remote by name); never set when another part of the command line may
   * reach the network too, so an approved key covers no more than what was approved.
   */
  approvalKey?: string;
  /** The argument or redirect target that lies outside the workspace, when that is why the segment is denied. */
  deniedPath?: string;
}

/** The result of classifying one Bash command (C.5.2), before task approvals are applied. */
export interface BashClassification {
  /** The most severe segment level. */
  level: RiskLevel;
  /** Rule and reason of the segment that decided the outcome. */
  rule: string;
  reason: string;
  outcome: PermissionAction;
  denyCode?: DenyCode;
  segments: BashSegment[];
  deniedPath?: string;
  /**
   * For a `network_write` command: the hosts (lower-case names or IP literals, `host` or `host:port`) the command line
   * names, which its approval covers; the sandbox's network proxy lets through only these. Absent on a network command
   * whose hosts cannot be read off the command line: a client given a dynamic URL, a proxy, a resolve option or a
   * config file always asks (no remembered key covers it); a package manager or a git remote by name, whose hosts
   * come from configuration, keeps its class key. Either way the proxy lets it reach public hosts only. Never the
   * worker's control plane, loopback or link-local addresses (docs/security.md).
   */
  networkHosts?: string[];
}

/** A permission decision for one ready tool call (C.5.1), before the ask policy is applied. */
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
