// Workflow-safe: the order of confirmation levels and actions (docs/tools.md §4, §5.2 aggregation). No I/O.
import type { RiskLevel } from '../../protocol/risk-level.js';
import type { PermissionAction } from '../../protocol/bash-classification.js';

/** Confirmation levels from least to most severe (§5.2): read_only < write < unclassified < network_write < destructive < forbidden. */
export const LEVEL_SEVERITY: readonly RiskLevel[] = [
  'read_only',
  'write',
  'unclassified',
  'network_write',
  'destructive',
  'forbidden',
];

const ACTION_SEVERITY: readonly PermissionAction[] = ['allow', 'ask', 'deny'];

/** The position of a level in LEVEL_SEVERITY; higher is more severe. */
export function levelSeverity(level: RiskLevel): number {
  return LEVEL_SEVERITY.indexOf(level);
}

/** The more severe of two levels (the first on a tie). */
export function maxLevel(first: RiskLevel, second: RiskLevel): RiskLevel {
  return levelSeverity(second) > levelSeverity(first) ? second : first;
}

/** The more restrictive of two actions: DENY > ASK > ALLOW. */
export function maxAction(first: PermissionAction, second: PermissionAction): PermissionAction {
  return ACTION_SEVERITY.indexOf(second) > ACTION_SEVERITY.indexOf(first) ? second : first;
}

/**
 * The action a level produces (§4). `write` is allowed only when its targets pass the auto-allow rules, so the caller
 * says whether they did; `network_write` asks until the task has approved its key, which the caller applies.
 */
export function levelAction(level: RiskLevel, writeAutoAllowed = true): PermissionAction {
  switch (level) {
    case 'read_only':
      return 'allow';
    case 'write':
      return writeAutoAllowed ? 'allow' : 'ask';
    case 'forbidden':
      return 'deny';
    case 'destructive':
    case 'network_write':
    case 'unclassified':
      return 'ask';
  }
}

/** True for a value that names a confirmation level. */
export function isRiskLevel(value: unknown): value is RiskLevel {
  return typeof value === 'string' && (LEVEL_SEVERITY as readonly string[]).includes(value);
}
