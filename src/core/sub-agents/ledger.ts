// Workflow-safe: what a run and its descendants spent together. Each run keeps its own ledger (its cost gate estimates
// its next call from it); what its children reported is added on top, so the root's figure is the whole tree's.
import type { UsageLedger } from '../../protocol/run-report.js';

/** The run's own usage plus every child's (each child's already holds its own descendants'). */
export function treeUsage(state: {
  usage: UsageLedger;
  children?: Record<string, { usage: UsageLedger }>;
}): UsageLedger {
  const children = Object.values(state.children ?? {});
  if (children.length === 0) return state.usage;
  return children.reduce((sum, child) => addLedgers(sum, child.usage), state.usage);
}

/** `a + b`, keeping `a`'s last prompt size (the base of `a`'s own next estimate). */
export function addLedgers(a: UsageLedger, b: UsageLedger): UsageLedger {
  return {
    promptTokens: a.promptTokens + b.promptTokens,
    completionTokens: a.completionTokens + b.completionTokens,
    cachedTokens: a.cachedTokens + b.cachedTokens,
    totalTokens: a.totalTokens + b.totalTokens,
    modelCalls: a.modelCalls + b.modelCalls,
    costUsd: a.costUsd + b.costUsd,
    lastPromptTokens: a.lastPromptTokens,
    unpricedModels: [...new Set([...a.unpricedModels, ...b.unpricedModels])],
    retriedCalls: a.retriedCalls + b.retriedCalls,
    schemaTokens: a.schemaTokens + b.schemaTokens,
  };
}
