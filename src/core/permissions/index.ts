// Workflow-safe: the permission layer of docs/tools.md §4–§5, importable by the workflow.
// Bash classification itself needs a shell parser and the file system, so it runs as an activity where the workspace
// is (activities/classify-bash.ts).
export type { FileWritePolicy, PermissionDecision } from './types.js';
export type {
  BashClassification,
  BashSegment,
  DenyCode,
  PermissionAction,
} from '../../protocol/bash-classification.js';
export { LEVEL_SEVERITY, levelSeverity, maxLevel, maxAction, levelAction, isRiskLevel } from './levels.js';
export {
  DEFAULT_WRITE_AUTO_ALLOW,
  DEFAULT_WRITE_PROTECTED,
  fileWriteRule,
  normalizeRelativePath,
  escapesWorkspace,
} from './file-rules.js';
export type { FileWriteVerdict } from './file-rules.js';
export { aggregateSegments, classificationOf, effectiveSegmentAction } from './aggregate.js';
export type { AggregateOutcome } from './aggregate.js';
export { decidePermission } from './decide.js';
export type { PermissionCall, PermissionContext, PermissionTool } from './decide.js';
export { deniedEnvelopeText, permissionDetails, permissionDeniedError, permissionSubject } from './denied.js';
export type { DeniedError, PermissionDetails } from './denied.js';
