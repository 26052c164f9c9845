// Workflow-safe: how a worker describes a function tool it offers (docs/tools.md §12), as the listFunctionTools
// activity returns it and the workflow records it for the task. The function body stays on the worker.
import type { RiskLevel } from './risk-level.js';
import type { ToolActivityPolicy } from './tool-activity.js';

/** The confirmation levels a function may declare (§12); no declaration means fail-closed DENY (§5.1). */
export type FunctionRisk = Extract<RiskLevel, 'read_only' | 'write' | 'destructive' | 'network_write'>;

/** What `registerFunction` needs to describe a function tool to the model and to the permission layer. */
export interface FunctionToolSpec {
  name: string;
  description: string;
  risk?: FunctionRisk;
  concurrencySafe?: boolean;
  /** Temporal settings for the function's activity; see `functionActivityPolicy` for the default. */
  activity?: ToolActivityPolicy;
  /** Hidden from the model until ToolSearch discovers it (§16). */
  shouldDefer?: boolean;
}
