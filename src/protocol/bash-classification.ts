// Workflow-safe: a Bash command's classification (docs/tools.md §5.2) as the classifyBash activity computes it where the workspace is
// and the workflow reads it back from history. Plain JSON.
import type { RiskLevel } from './risk-level.js';

/** What the policy does with a call before the ask policy applies (§4). */
export type PermissionAction = 'allow' | 'ask' | 'deny';

/** The error code of a DENY: policy (`PERMISSION_DENIED`) or workspace boundary (`ACCESS_DENIED`). */
export type DenyCode = 'PERMISSION_DENIED' | 'ACCESS_DENIED';

/** One segment of a Bash command (split at `;` `&&` `||` `|` `&` and newlines, §5.2) with its own level and action. */
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

/** The result of classifying one Bash command (§5.2), before task approvals are applied. */
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

/** The input of `classifyBash`. */
export interface ClassifyBashInput {
  command: string;
  /** Workspace-relative working directory (already validated by the boundary check). */
  cwd: string;
  /** Absolute workspace root. */
  workspace: string;
  writeAutoAllow?: string[];
  writeProtected?: string[];
  /** Rules of command-form `write` rows that are auto-allowed; default: all of them. */
  bashWriteAutoAllow?: string[];
  /**
   * The worker's data directory (worker-data.ts), where the commands' HOME of this workspace lives; default: the data
   * directory of a worker not told otherwise.
   */
  dataDir?: string;
  /** `$HOME` for `~` expansion, the commands' scratch space; default: the commands' HOME under `dataDir`. */
  home?: string;
}
