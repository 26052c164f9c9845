// Workflow-safe: the texts and `details.permission` of denied calls (docs/tools.md §4), for the envelope the workflow
// builds when a decision is DENY or an ASK is not approved.
import type { ToolContract } from '../../tools/define-tool.js';
import type { ErrorCode } from '../../protocol/envelope.js';
import type { PermissionDecision } from './types.js';
import type { PermissionAction } from '../../protocol/bash-classification.js';

/** `details.permission` of a denied call (§4). */
export interface PermissionDetails {
  level: string;
  action: PermissionAction;
  effective_action: PermissionAction;
  reason: string;
  rule: string;
  approval_key?: string;
  approval_keys?: string[];
}

/** The error part of a denied call's envelope: spread it into `errorEnvelope({ ...error, context })`. */
export interface DeniedError {
  code: ErrorCode;
  message: string;
  details: Record<string, unknown>;
}

const MAX_SUBJECT_CHARS = 200;

/** What the texts call the call: the command of a shell tool, otherwise the tool name. */
export function permissionSubject(
  tool: Pick<ToolContract, 'name' | 'confirmation'>,
  input: Record<string, unknown>,
): string {
  const command = input.command;
  if (tool.confirmation === 'command' && typeof command === 'string') {
    const single = command.replace(/\s+/g, ' ').trim();
    return single.length > MAX_SUBJECT_CHARS ? `${single.slice(0, MAX_SUBJECT_CHARS - 1)}…` : single;
  }
  return tool.name;
}

/** `details.permission = {level, action, effective_action, reason, rule, approval_key?}` (§4). */
export function permissionDetails(
  decision: PermissionDecision,
  effectiveAction: PermissionAction = 'deny',
): PermissionDetails {
  const [firstKey] = decision.approvalKeys;
  return {
    level: decision.level,
    action: decision.action,
    effective_action: effectiveAction,
    reason: decision.reason,
    rule: decision.rule,
    ...(firstKey !== undefined ? { approval_key: firstKey } : {}),
    ...(decision.approvalKeys.length > 1 ? { approval_keys: [...decision.approvalKeys] } : {}),
  };
}

/**
 * The envelope text of a denied call. A DENY names its cause; an ASK that was not approved reads
 * "'<cmd or tool>' requires confirmation (<level>: <reason>) and was not approved." (§4).
 */
export function deniedEnvelopeText(decision: PermissionDecision, subject: string): string {
  if (decision.action === 'ask' || decision.action === 'allow') {
    return `'${subject}' requires confirmation (${decision.level}: ${decision.reason}) and was not approved.`;
  }
  if (decision.denyCode === 'ACCESS_DENIED') {
    return decision.deniedPath !== undefined
      ? `Path '${decision.deniedPath}' is outside the workspace.`
      : decision.reason;
  }
  switch (decision.rule) {
    case 'tool_disabled':
      return `Tool '${subject}' is disabled.`;
    case 'read_only_mode':
      return `'${subject}' is not allowed in read-only mode: only read tools run.`;
    case 'unclassified_tool_fails_closed':
      return `'${subject}' declares no risk level, so it is denied (fail closed).`;
    default:
      return `'${subject}' is forbidden (${decision.level}: ${decision.reason}) and never runs.`;
  }
}

/**
 * The error of a denied call: PERMISSION_DENIED (or ACCESS_DENIED for a path outside W) with `details.reason` (the
 * rule of a DENY, `not_approved` for an ASK) and `details.permission`. `rejectionReason` is what the approver said.
 */
export function permissionDeniedError(
  decision: PermissionDecision,
  subject: string,
  options: { rejectionReason?: string } = {},
): DeniedError {
  const code: ErrorCode = decision.action === 'deny' ? (decision.denyCode ?? 'PERMISSION_DENIED') : 'PERMISSION_DENIED';
  const details: Record<string, unknown> = {
    reason: decision.action === 'deny' ? decision.rule : 'not_approved',
    permission: permissionDetails(decision, 'deny'),
  };
  if (code === 'ACCESS_DENIED' && decision.deniedPath !== undefined) details.path = decision.deniedPath;
  if (options.rejectionReason !== undefined && options.rejectionReason !== '')
    details.rejection_reason = options.rejectionReason;
  return { code, message: deniedEnvelopeText(decision, subject), details };
}
