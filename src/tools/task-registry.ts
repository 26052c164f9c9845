// Sandbox-safe: the one way a task's tool registry is made, shared by the workflow and the activities, so that every
// name the workflow sends resolves to the same contract where the call runs.
import type { FunctionToolSpec } from './function-tool.js';
import { builtinTools } from './index.js';
import { createToolRegistry } from './registry.js';
import type { ToolRegistry } from './registry.js';
import { toolSearch } from './tool-search.js';

/** The built-ins, ToolSearch and the worker's function tools recorded at the task's start. */
export function createTaskRegistry(functionTools: readonly FunctionToolSpec[] = []): ToolRegistry {
  const registry = createToolRegistry([...builtinTools, toolSearch]);
  for (const spec of functionTools) registry.registerFunction(spec);
  return registry;
}
