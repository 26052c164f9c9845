// Workflow-safe: a call's permission (docs/tools.md §5.1) and the run's ask policy (§4): allowed, denied, approved at
// once, or a human waits; an approval's network_write keys are kept for the task.
import { breakerKeysOf } from '../../tools/define-tool.js';
import type { PendingApproval } from '../../protocol/approval.js';
import { DEFAULT_ASK_TIMEOUT_MS, callIdentity } from '../approvals.js';
import { releaseTrial } from '../breaker.js';
import { errorEnvelope } from '../../protocol/envelope.js';
import type { PermissionDecision } from '../permissions/index.js';
import { decidePermission, permissionDeniedError, permissionSubject } from '../permissions/index.js';
import type { AgentInput, AgentState } from '../state.js';
import { addEvent } from '../state.js';
import { setBreaker, workflowResult } from './call-records.js';
import { profileOffers } from '../tool-selection/step-tools.js';
import type { StepEnv } from './step-env.js';
import type { CallNeed, CallRun } from './call-run.js';
import { settleAttempt } from './call-attempts.js';

/** §5.1 and the run's ask policy (§4): allow, deny, or ask — approved at once, denied at once, or a human waits. */
export function decide(env: StepEnv, run: CallRun, now: number): CallNeed | undefined {
  const { state, input, registry } = env;
  const permission = decidePermission(
    { tool: run.tool, input: run.input, ...(run.lexicalPath !== undefined ? { relPath: run.lexicalPath } : {}) },
    {
      mode: input.mode,
      // A tool the run's profile does not offer is as good as disabled for this run.
      enabled: registry.isEnabled(run.tool.name) && profileOffers(state, run.tool),
      approvals: new Set(state.approvals),
      ...(run.classification ? { bash: run.classification } : {}),
    },
  );
  run.permission = permission;
  addEvent(state, 'permission_decision', now, {
    tool_call_id: run.callId,
    tool_name: run.tool.name,
    level: permission.level,
    action: permission.action,
    reason: permission.reason,
    rule: permission.rule,
  });
  if (permission.action === 'allow') {
    startRun(env, run, now);
    return undefined;
  }
  if (permission.action === 'deny') {
    denied(env, run, permission, undefined, now);
    return undefined;
  }
  const key = permission.approvalKeys[0];
  addEvent(state, 'permission_ask', now, {
    tool_call_id: run.callId,
    tool: run.tool.name,
    level: permission.level,
    ...(key ? { key } : {}),
  });
  switch (askPolicyOf(input)) {
    case 'approve':
      approve(env, run, now);
      return undefined;
    case 'deny':
      denied(env, run, permission, 'the run does not ask (--ask deny)', now);
      return undefined;
    case 'wait':
      run.phase = 'awaiting_approval';
      run.awaitingSince = now;
      state.status = 'waiting_approval';
      return {
        type: 'approval',
        request: approvalRequest(env, run, permission, now),
        timeoutMs: input.askTimeoutMs ?? DEFAULT_ASK_TIMEOUT_MS,
      };
  }
}

/** `prompt` waits like `wait`: the CLI that started the run is the one that asks. */
function askPolicyOf(input: AgentInput): 'approve' | 'deny' | 'wait' {
  return input.askPolicy === 'approve' || input.askPolicy === 'deny' ? input.askPolicy : 'wait';
}

function approvalRequest(env: StepEnv, run: CallRun, permission: PermissionDecision, now: number): PendingApproval {
  const key = permission.approvalKeys[0];
  return {
    callId: run.callId,
    identity: callIdentity(env.state.step, run.index, run.tool.name, run.input),
    tool: run.tool.name,
    level: permission.level,
    reason: permission.reason,
    ...(typeof run.input.command === 'string' ? { command: run.input.command } : {}),
    ...(typeof run.input.path === 'string' ? { path: run.input.path } : {}),
    ...(key ? { key } : {}),
    requestedAt: now,
  };
}

/** An approval covers this call; a network_write key granted once covers the task (§4). */
export function approve(env: StepEnv, run: CallRun, now: number): void {
  const permission = run.permission!;
  if (permission.level === 'network_write') rememberKeys(env.state, permission.approvalKeys);
  startRun(env, run, now);
}

export function rememberKeys(state: AgentState, keys: readonly string[]): void {
  state.approvals = [...new Set([...state.approvals, ...keys])];
}

/** A DENY, or an ASK that was not approved (`why` is what was said, or why nobody was asked). */
export function denied(
  env: StepEnv,
  run: CallRun,
  permission: PermissionDecision,
  why: string | undefined,
  now: number,
): void {
  const { state } = env;
  // The call never ran: a HALF_OPEN trial it held goes back for the next call.
  for (const key of breakerKeysOf(run.tool)) setBreaker(state, key, releaseTrial(state.breakers[key]), now);
  const error = permissionDeniedError(
    permission,
    permissionSubject(run.tool, run.input),
    why !== undefined ? { rejectionReason: why } : {},
  );
  const envelope = errorEnvelope({ ...error, context: run.context });
  settleAttempt(env, run, { result: workflowResult(env, run.callId, envelope), ran: false, circuitOpen: false }, now);
}

function startRun(env: StepEnv, run: CallRun, now: number): void {
  addEvent(env.state, 'tool_lifecycle', now, { tool_call_id: run.callId, tool_name: run.tool.name, status: 'started' });
  run.phase = 'run';
}
