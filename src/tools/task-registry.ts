// Sandbox-safe: the one way a task's tool registry is made, shared by the workflow and the activities, so that every
// name the workflow sends resolves to the same contract where the call runs.
import type { FunctionToolSpec } from './function-tool.js';
import { builtinTools } from './index.js';
import { createMcpTool } from './mcp-tool.js';
import type { McpToolDescriptor } from './mcp-tool.js';
import { createToolRegistry } from './registry.js';
import type { ToolRegistry } from './registry.js';
import { toolSearch } from './tool-search.js';

/** The built-ins, ToolSearch, and the worker's function tools and the MCP servers' tools recorded at the task's start. */
export function createTaskRegistry(
  functionTools: readonly FunctionToolSpec[] = [],
  mcpTools: readonly McpToolDescriptor[] = [],
): ToolRegistry {
  const registry = createToolRegistry([...builtinTools, toolSearch]);
  for (const spec of functionTools) registry.registerFunction(spec);
  // The listing gave MCP tools unique, valid names and checked their schemas; a tool that still cannot be registered
  // (a function tool holds its name) is left out rather than failing the task, the same on every replay.
  for (const descriptor of mcpTools) {
    try {
      registry.register(createMcpTool(descriptor));
    } catch {
      continue;
    }
  }
  return registry;
}
