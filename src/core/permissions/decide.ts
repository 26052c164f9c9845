// Workflow-safe: the permission decision of docs/tools.md §5.1 for one ready call, computed in workflow state.
// Shell commands arrive already classified (§5.2, by an activity where the workspace is); task approvals are applied here.
import type { ToolContract } from '../../tools/define-tool.js';
import type { RiskLevel } from '../../protocol/risk-level.js';
import { aggregateSegments } from './aggregate.js';
import { escapesWorkspace, fileWriteRule, normalizeRelativePath } from './file-rules.js';
import { isRiskLevel, levelAction } from './levels.js';
import type { FileWritePolicy, PermissionDecision } from './types.js';
import type { AgentMode } from '../../protocol/agent-mode.js';
import type { BashClassification } from '../../protocol/bash-classification.js';

/** What the decision needs to know about the tool: none of it depends on the input type. */
export type PermissionTool = Pick<ToolContract, 'name' | 'category' | 'confirmation' | 'risk'>;

/** One ready call. */
export interface PermissionCall {
  tool: PermissionTool;
  input: Record<string, unknown>;
  /** Lexically normalised workspace-relative path of a file tool (see `normalizeRelativePath`). */
  relPath?: string;
}

/** The task state the decision depends on. */
export interface PermissionContext {
  mode: AgentMode;
  enabled: boolean;
  /** The classification of a shell command (tools whose confirmation rule is `command`; absent means it asks). */
  bash?: BashClassification;
  /** `network_write` approval keys granted earlier in this task. */
  approvals: ReadonlySet<string>;
  policy?: FileWritePolicy;
  /** Absolute workspace root, to relativise an absolute `path` parameter inside it. */
  workspace?: string;
}

/**
 * §5.1 steps 1–5: disabled → DENY `tool_disabled`; read-only mode and not a read tool → DENY `read_only_mode`; a path
 * that lexically leaves W → DENY ACCESS_DENIED; then classification (read tools, file write rules, the Bash
 * classification with approvals, declared risk of function/MCP tools) and level → action (§4).
 */
export function decidePermission(call: PermissionCall, context: PermissionContext): PermissionDecision {
  const { tool } = call;
  if (!context.enabled) {
    return deny(nominalLevel(call, context), 'tool_disabled', `tool '${tool.name}' is disabled`);
  }
  if (context.mode === 'read_only' && tool.category !== 'read') {
    return deny(nominalLevel(call, context), 'read_only_mode', 'only read tools run in read-only mode');
  }
  const relPath = call.relPath ?? pathParameter(call, context.workspace);
  // An absolute path may still name W through another spelling of it; only the executor can tell (realpath).
  if (relPath !== undefined && !relPath.startsWith('/') && escapesWorkspace(relPath)) {
    const shown = typeof call.input.path === 'string' ? call.input.path : relPath;
    return {
      action: 'deny',
      level: nominalLevel(call, context),
      rule: 'path_outside_workspace',
      reason: `Path '${shown}' is outside the workspace.`,
      denyCode: 'ACCESS_DENIED',
      approvalKeys: [],
      deniedPath: shown,
    };
  }

  switch (tool.confirmation) {
    case 'declared':
      return declaredRisk(tool);
    case 'command':
      return bashDecision(context);
    case 'none':
      return { action: 'allow', level: 'read_only', rule: 'read_tool', reason: 'reads only', approvalKeys: [] };
    case 'path':
      return pathDecision(relPath, context);
  }
}

function pathDecision(relPath: string | undefined, context: PermissionContext): PermissionDecision {
  if (relPath === undefined) {
    return {
      action: 'ask',
      level: 'write',
      rule: 'no_path',
      reason: 'writes without a path to check',
      approvalKeys: [],
    };
  }
  const verdict = fileWriteRule(relPath, context.policy);
  const reason =
    verdict.rule === 'protected_path'
      ? `protected path ${relPath}`
      : verdict.rule === 'auto_allow_pattern'
        ? `writes ${relPath}`
        : `${relPath} is not in writeAutoAllow`;
  return { action: verdict.action, level: 'write', rule: verdict.rule, reason, approvalKeys: [] };
}

function deny(level: RiskLevel, rule: string, reason: string): PermissionDecision {
  return { action: 'deny', level, rule, reason, denyCode: 'PERMISSION_DENIED', approvalKeys: [] };
}

/** Function and MCP tools carry the level declared at registration; none declared fails closed. */
function declaredRisk(tool: PermissionTool): PermissionDecision {
  if (!isRiskLevel(tool.risk)) {
    return deny('unclassified', 'unclassified_tool_fails_closed', 'the tool declares no risk level');
  }
  // A function has no path for the auto-allow patterns to match, so a declared `write` asks.
  const action = levelAction(tool.risk, false);
  return {
    action,
    level: tool.risk,
    rule: 'declared_risk',
    reason: `declared risk ${tool.risk}`,
    ...denyCodeFor(action),
    approvalKeys: [],
  };
}

function bashDecision(context: PermissionContext): PermissionDecision {
  const classification = context.bash;
  if (!classification) {
    return {
      action: 'ask',
      level: 'unclassified',
      rule: 'not_classified',
      reason: 'the command was not classified',
      approvalKeys: [],
    };
  }
  if (classification.outcome === 'deny') {
    return {
      action: 'deny',
      level: classification.level,
      rule: classification.rule,
      reason: classification.reason,
      denyCode: classification.denyCode ?? 'PERMISSION_DENIED',
      approvalKeys: [],
      ...(classification.deniedPath !== undefined ? { deniedPath: classification.deniedPath } : {}),
    };
  }
  const outcome = aggregateSegments(classification.segments, context.approvals);
  if (outcome.outcome === 'allow' && classification.outcome === 'ask') {
    const approved = classification.segments
      .map((segment) => segment.approvalKey)
      .filter((key): key is string => key !== undefined && context.approvals.has(key));
    return {
      action: 'allow',
      level: outcome.level,
      rule: 'approved_in_task',
      reason: `approved earlier in this task (${[...new Set(approved)].join(', ')})`,
      approvalKeys: [],
    };
  }
  return {
    action: outcome.outcome,
    level: outcome.level,
    rule: outcome.rule,
    reason: outcome.reason,
    ...(outcome.denyCode !== undefined ? { denyCode: outcome.denyCode } : {}),
    approvalKeys: outcome.approvalKeys,
  };
}

function denyCodeFor(action: string): { denyCode?: 'PERMISSION_DENIED' } {
  return action === 'deny' ? { denyCode: 'PERMISSION_DENIED' } : {};
}

/** The level a call would have, reported with decisions that stop before classification. */
function nominalLevel(call: PermissionCall, context: PermissionContext): RiskLevel {
  const { tool } = call;
  switch (tool.confirmation) {
    case 'declared':
      return isRiskLevel(tool.risk) ? tool.risk : 'unclassified';
    case 'command':
      return context.bash?.level ?? 'unclassified';
    case 'none':
      return 'read_only';
    case 'path':
      return 'write';
  }
}

function pathParameter(call: PermissionCall, workspace: string | undefined): string | undefined {
  if (call.tool.confirmation !== 'path' && call.tool.confirmation !== 'none') return undefined;
  const value = call.input.path;
  return typeof value === 'string' && value.length > 0 ? normalizeRelativePath(value, workspace) : undefined;
}
