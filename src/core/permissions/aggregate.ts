// Workflow-safe: folds the segments of a Bash command into one outcome (docs/tools.md §5.2 "Aggregating segments").
// Shared by the classifier (no approvals yet) and by the workflow's decision (with the task's approvals).
import type { RiskLevel } from '../../protocol/risk-level.js';
import { levelSeverity, maxAction, maxLevel } from './levels.js';
import type {
  BashClassification,
  BashSegment,
  DenyCode,
  PermissionAction,
} from '../../protocol/bash-classification.js';

/** The outcome of a set of segments. */
export interface AggregateOutcome {
  level: RiskLevel;
  rule: string;
  reason: string;
  outcome: PermissionAction;
  denyCode?: DenyCode;
  deniedPath?: string;
  /** Keys of `network_write` segments still asking for approval, in order, without repeats. */
  approvalKeys: string[];
}

/** A segment's action once the task's approvals apply: an approved `network_write` key turns its ASK into ALLOW. */
export function effectiveSegmentAction(segment: BashSegment, approvals: ReadonlySet<string>): PermissionAction {
  if (
    segment.action === 'ask' &&
    segment.level === 'network_write' &&
    segment.approvalKey !== undefined &&
    approvals.has(segment.approvalKey)
  ) {
    return 'allow';
  }
  return segment.action;
}

/**
 * The command's action is the most restrictive segment action; its level the most severe segment level. Outcome
 * precedence: forbidden DENY (PERMISSION_DENIED) > path DENY (ACCESS_DENIED) > ASK > ALLOW. Rule and reason come from
 * the first segment that decides the outcome (the most severe one among equals).
 */
export function aggregateSegments(
  segments: readonly BashSegment[],
  approvals: ReadonlySet<string> = new Set<string>(),
): AggregateOutcome {
  if (segments.length === 0) {
    return { level: 'read_only', rule: 'empty_command', reason: 'nothing to run', outcome: 'allow', approvalKeys: [] };
  }
  let level: RiskLevel = 'read_only';
  let outcome: PermissionAction = 'allow';
  const actions = segments.map((segment) => effectiveSegmentAction(segment, approvals));
  segments.forEach((segment, index) => {
    level = maxLevel(level, segment.level);
    outcome = maxAction(outcome, actions[index] ?? segment.action);
  });

  const approvalKeys: string[] = [];
  segments.forEach((segment, index) => {
    const key = segment.approvalKey;
    if (
      actions[index] === 'ask' &&
      segment.level === 'network_write' &&
      key !== undefined &&
      !approvalKeys.includes(key)
    ) {
      approvalKeys.push(key);
    }
  });

  const forbidden = segments.find((segment, index) => actions[index] === 'deny' && segment.level === 'forbidden');
  if (forbidden) {
    return {
      level,
      rule: forbidden.rule,
      reason: forbidden.reason,
      outcome: 'deny',
      denyCode: 'PERMISSION_DENIED',
      approvalKeys,
    };
  }
  const outside = segments.find((_segment, index) => actions[index] === 'deny');
  if (outside) {
    return {
      level,
      rule: outside.rule,
      reason: outside.reason,
      outcome: 'deny',
      denyCode: 'ACCESS_DENIED',
      ...(outside.deniedPath !== undefined ? { deniedPath: outside.deniedPath } : {}),
      approvalKeys,
    };
  }
  const deciding = mostSevere(segments.filter((_segment, index) => actions[index] === outcome));
  return { level, rule: deciding.rule, reason: deciding.reason, outcome, approvalKeys };
}

function mostSevere(segments: readonly BashSegment[]): BashSegment {
  let best = segments[0] as BashSegment;
  for (const segment of segments) if (levelSeverity(segment.level) > levelSeverity(best.level)) best = segment;
  return best;
}

/** The classification of a command from its segments, before any task approvals are applied. */
export function classificationOf(segments: BashSegment[]): BashClassification {
  const outcome = aggregateSegments(segments);
  return {
    level: outcome.level,
    rule: outcome.rule,
    reason: outcome.reason,
    outcome: outcome.outcome,
    ...(outcome.denyCode !== undefined ? { denyCode: outcome.denyCode } : {}),
    segments,
    ...(outcome.deniedPath !== undefined ? { deniedPath: outcome.deniedPath } : {}),
  };
}
