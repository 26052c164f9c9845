// Sandbox-safe: what the task keeps of its MCP servers' tools, listed once when it starts. Pure: the listing comes in as
// the activity's result, time as workflow time.
import type { ContentKey } from '../content-key.js';
import type { AgentState } from '../state.js';
import { addEvent, addProgress } from '../state.js';
import type { McpToolDescriptor } from '../../tools/mcp-tool.js';

/** A server whose tools could not be listed, and why. */
export interface McpServerFailure {
  server: string;
  error: string;
}

/** What the listing activity found: the tools, the catalog they are stored in, and the servers that failed. */
export interface McpListing {
  /** Set when there is at least one tool. */
  catalog?: ContentKey;
  tools: McpToolDescriptor[];
  unavailable: McpServerFailure[];
}

/**
 * Records the listing in the task's state: the tools join the registry for the rest of the task (replays and
 * continuations see the same list), and each server that could not be listed is named in the trace and the progress,
 * so its missing tools are never a silent drop. The run goes on either way.
 */
export function recordMcpTools(state: AgentState, listing: McpListing, now: number): void {
  if (listing.catalog !== undefined && listing.tools.length > 0) {
    state.mcp = { catalog: listing.catalog, tools: listing.tools };
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
