// Workflow-safe: what the task keeps of its MCP servers' tools, listed once when it starts. Pure: the listing comes in as
// the activity's result, time as workflow time.
import type { AgentState } from '../state.js';
import { addEvent, addProgress } from '../state.js';
import { buildTaskRegistry } from '../../tools/task-registry.js';
import type { McpListing } from '../../protocol/mcp.js';

/**
 * Records the listing in the task's state: the tools join the registry for the rest of the task (replays and
 * continuations see the same list). Each server that could not be listed, and each tool the registry refuses (a
 * function tool of the worker holds its name), is named in the trace and the progress, so a missing tool is never a
 * silent drop. The run goes on either way. Call it after the task's function tools are recorded.
 */
export function recordMcpTools(state: AgentState, listing: McpListing, now: number): void {
  const { refused } = buildTaskRegistry(state.functionTools, listing.tools);
  const tools = listing.tools.filter((tool) => !refused.some((refusal) => refusal.name === tool.name));
  if (listing.catalog !== undefined && tools.length > 0) state.mcp = { catalog: listing.catalog, tools };
  for (const { name, server, reason } of refused) {
    addEvent(state, 'mcp_tool_refused', now, { server, tool: name, reason });
    addProgress(state, {
      kind: 'error',
      step: state.step,
      text: `MCP tool '${name}' of server '${server}' is left out: ${reason}`,
    });
  }
  for (const { server, error } of listing.unavailable) {
    addEvent(state, 'mcp_server_unavailable', now, { server, error });
    addProgress(state, {
      kind: 'error',
      step: state.step,
      text: `MCP server '${server}' is unavailable; the run goes on without its tools: ${error}`,
    });
  }
}
