// Workflow-safe: the one way a task's tool registry is made, shared by the workflow and the activities, so that every
// name the workflow sends resolves to the same contract where the call runs.
import type { FunctionToolSpec } from '../protocol/function-tool-spec.js';
import { builtinTools } from './index.js';
import { createMcpTool } from './mcp-tool.js';
import type { McpToolDescriptor } from '../protocol/mcp.js';
import { createToolRegistry } from './registry.js';
import type { ToolRegistry } from './define-tool.js';
import { toolSearch } from './tool-search.js';
import { task } from './task.js';

/** An MCP tool the registry could not take, and why. */
export interface RefusedMcpTool {
  name: string;
  server: string;
  reason: string;
}

/**
 * The built-ins, ToolSearch, and the worker's function tools and the MCP servers' tools recorded at the task's start;
 * Task too in a run that may start sub-agents.
 */
export function createTaskRegistry(
  functionTools: readonly FunctionToolSpec[] = [],
  mcpTools: readonly McpToolDescriptor[] = [],
  withTask = false,
): ToolRegistry {
  const registry = buildTaskRegistry(functionTools, mcpTools).registry;
  // Task runs in the workflow (a child workflow), so only the workflow's registry needs it.
  if (withTask) registry.register(task);
  return registry;
}

/**
 * The task registry and the MCP tools it refused. The listing gave MCP tools unique, valid names and checked their
 * schemas; one that still cannot be registered (a function tool holds its name) is left out rather than failing the
 * task. The task's start reports each one (recordMcpTools) and keeps only the rest, so replays see the same list.
 */
export function buildTaskRegistry(
  functionTools: readonly FunctionToolSpec[],
  mcpTools: readonly McpToolDescriptor[],
): { registry: ToolRegistry; refused: RefusedMcpTool[] } {
  const registry = createToolRegistry([...builtinTools, toolSearch]);
  for (const spec of functionTools) registry.registerFunction(spec);
  const refused: RefusedMcpTool[] = [];
  for (const descriptor of mcpTools) {
    try {
      registry.register(createMcpTool(descriptor));
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      refused.push({ name: descriptor.name, server: descriptor.server, reason });
    }
  }
  return { registry, refused };
}
