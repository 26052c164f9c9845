// Workflow-safe: how far a run may delegate to sub-agents (the Task tool), and whether a run offers the tool at all.
import type { SubAgentLimits } from '../../protocol/sub-agents.js';
import type { AgentInput } from '../state.js';

/** What `run` starts with unless told otherwise (`--sub-agents`, `--sub-agent-steps`, `--sub-agent-timeout`). */
export const DEFAULT_SUB_AGENT_LIMITS: SubAgentLimits = {
  maxDepth: 2,
  maxChildren: 16,
  maxSteps: 40,
  timeoutMs: 30 * 60_000,
};

/** The run's depth in its tree: 0 for a run the operator started. */
export function depthOf(input: Pick<AgentInput, 'parent'>): number {
  return input.parent?.depth ?? 0;
}

/** A run offers Task when it has sub-agent limits and its children would still be within the depth limit. */
export function offersTask(input: Pick<AgentInput, 'parent' | 'subAgents'>): boolean {
  return input.subAgents !== undefined && depthOf(input) < input.subAgents.maxDepth;
}
