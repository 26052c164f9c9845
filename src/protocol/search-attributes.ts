// Workflow-safe: the search attributes ops teams filter runs by (docs/architecture.md#temporal-mapping).
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

/** Typed keys of the Agent* search attributes; the dev server and docker-compose register them. */
export const AGENT_SEARCH_ATTRIBUTES = {
  status: defineSearchAttributeKey('AgentStatus', SearchAttributeType.KEYWORD),
  step: defineSearchAttributeKey('AgentStep', SearchAttributeType.INT),
  pendingApprovals: defineSearchAttributeKey('AgentPendingApprovals', SearchAttributeType.INT),
  costUsd: defineSearchAttributeKey('AgentCostUsd', SearchAttributeType.DOUBLE),
  model: defineSearchAttributeKey('AgentModel', SearchAttributeType.KEYWORD),
} as const;
