// Workflow-safe: what a tool call leaves behind besides its result — the workflow-made tool message, the breaker
// transition, the closing lifecycle event and the progress line that `run` and `watch` print.
import type { BreakerState, BreakerTransition } from '../breaker.js';
import type { Envelope } from '../../protocol/envelope.js';
import { serializeEnvelope } from '../../protocol/envelope.js';
import type { AgentState } from '../state.js';
import { addEvent, addProgress } from '../state.js';
import type { PlannedCall } from '../tool-calls.js';
import type { ToolOutcome } from '../../protocol/tool-outcome.js';
import { outcomeOf } from '../../protocol/tool-outcome.js';
import { workflowMessage } from '../../protocol/transcript-ref.js';
import type { ToolResult, StepEnv } from './step-env.js';

/** The call's closing lifecycle event and its progress line (`run` and `watch` print it). */
export function recordFinish(
  env: StepEnv,
  tool: string,
  callId: string,
  outcome: ToolOutcome,
  params: Record<string, unknown>,
  started: number,
  now: number,
): void {
  const { state } = env;
  addEvent(state, 'tool_lifecycle', now, {
    tool_call_id: callId,
    tool_name: tool,
    status: outcome.status === 'error' ? 'failed' : 'completed',
    ...(outcome.error ? { code: outcome.error.code } : {}),
  });
  addProgress(state, {
    kind: 'tool',
    step: state.step,
    tool,
    status: outcome.status === 'error' ? (outcome.error?.code ?? 'error') : outcome.status,
    ms: now - started,
    text: progressLabel(params, callId),
    ...(outcome.status === 'error' ? { detail: outcome.text } : {}),
  });
}

/** The argument that says most about a call (its path, pattern, command, a sub-agent's task…), on one line. */
export function progressLabel(params: Record<string, unknown>, callId: string): string {
  const label = ['path', 'pattern', 'command', 'query', 'input', 'description']
    .map((key) => params[key])
    .find((value) => typeof value === 'string');
  const single = typeof label === 'string' ? label.replace(/\s+/g, ' ') : callId;
  return single.length > 60 ? `${single.slice(0, 59)}…` : single;
}

/** A result the workflow made itself (planning errors, gates, lost activities): its message waits to be stored. */
export function workflowResult(env: Pick<StepEnv, 'state'>, callId: string, envelope: Envelope): ToolResult {
  const message = workflowMessage(
    { role: 'tool', tool_call_id: callId, content: serializeEnvelope(envelope) },
    env.state.pendingWrites,
  );
  return { message, outcome: outcomeOf(envelope) };
}

export function setBreaker(
  state: AgentState,
  tool: string,
  next: BreakerState,
  now: number,
  transition?: BreakerTransition,
): void {
  state.breakers[tool] = next;
  if (transition) addEvent(state, 'circuit_state_change', now, { tool_name: tool, ...transition });
}

export function toolNameOf(plan: PlannedCall): string {
  return plan.state === 'ready' ? plan.tool.name : plan.toolName;
}
