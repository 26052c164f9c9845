// Workflow-safe: MCP servers and their tools as they cross the boundary: the servers a run brings (`.mcp.json` shape, in
// the workflow input), and what the listMcpTools activity found (each tool's descriptor, the servers that failed).
import type { ContentKey } from './content-key.js';

/** A server the worker starts as a child process and speaks to over stdin/stdout. */
export interface McpStdioServer {
  type?: 'stdio';
  command: string;
  args?: string[];
  env?: Record<string, string>;
  /**
   * Working directory of the server, as written; default: an empty directory of the worker's, outside every workspace
   * (`${workspaceFolder}` names the run's workspace, and puts what the model writes on the server's import path).
   */
  cwd?: string;
  /** How long one tool call may take (ms). */
  timeoutMs?: number;
}

/** A server reached over Streamable HTTP. */
export interface McpHttpServer {
  type: 'http';
  url: string;
  headers?: Record<string, string>;
  timeoutMs?: number;
}

/** One entry of `mcpServers`. Values may hold `${VAR}` and `${VAR:-default}`, expanded on the worker. */
export type McpServerConfig = McpStdioServer | McpHttpServer;

/** `mcpServers` of a `.mcp.json` file: server name → settings. */
export type McpServers = Record<string, McpServerConfig>;

/** The behaviour hints of an MCP tool (MCP `ToolAnnotations`); servers are not trusted to be right, only to ask less. */
export interface McpToolAnnotations {
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

/** One tool of one MCP server, as the listing recorded it for the task. */
export interface McpToolDescriptor {
  /** The registry name (`mcp__<server>__<tool>`, sanitised and unique). */
  name: string;
  server: string;
  /** The server's own name for the tool. */
  tool: string;
  description: string;
  /** The tool's `inputSchema`, as the server declared it. */
  inputSchema: Record<string, unknown>;
  annotations?: McpToolAnnotations;
  /** How long one call may take (the server's `timeoutMs`, else DEFAULT_MCP_CALL_TIMEOUT_MS). */
  timeoutMs?: number;
}

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

/** What the workflow sends: the run's workspace (`${workspaceFolder}`, a run's server's sandbox) and its own servers. */
export interface ListMcpToolsInput {
  workspace: string;
  servers?: McpServers;
  /**
   * Asked as a local activity in the run's first workflow task: answered only when the listing is immediate (no server
   * to connect to) on the run's host (`onlyOnHost`, the run's tool queue, when it is pinned to one); anything else
   * answers `{ elsewhere: true }` and the workflow asks again as an ordinary activity.
   */
  local?: { onlyOnHost?: string };
}
