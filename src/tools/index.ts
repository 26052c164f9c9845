// Workflow-safe: the ordered set of built-in tool contracts.
import { bash } from './bash.js';
import type { ToolContract } from './define-tool.js';
import { editFile } from './edit-file.js';
import { glob } from './glob.js';
import { grep } from './grep.js';
import { readFile } from './read-file.js';
import { writeFile } from './write-file.js';

/**
 * The built-in tools (docs/tools.md §2), sorted by name. A new one is its contract and one line here (and its
 * executor's).
 */
export const builtinTools: readonly ToolContract[] = [
  bash,
  editFile,
  glob,
  grep,
  readFile,
  writeFile,
] as unknown as readonly ToolContract[];

export { bash, editFile, glob, grep, readFile, writeFile };
export {
  toolSearch,
  searchDeferredTools,
  runToolSearch,
  TOOL_SEARCH_NAME,
  MAX_TOOL_SEARCH_RESULTS,
} from './tool-search.js';
export type { DeferredToolMatch, ToolSearchContext, ToolSearchOutcome } from './tool-search.js';
export { createToolRegistry, TOOL_NAME_PATTERN, MISSING_TOOL_NAME } from './registry.js';
export type { ToolRegistry, SchemaContext, ResolvedName } from './define-tool.js';
export {
  createFunctionTool,
  isFunctionTool,
  functionActivityPolicy,
  FUNCTION_TOOL_PARAMETERS,
} from './function-tool.js';
export type { FunctionToolInput } from './function-tool.js';
export type { FunctionRisk, FunctionToolSpec } from '../protocol/function-tool-spec.js';
export {
  toToolSchema,
  toInputJsonSchema,
  toStrictInputJsonSchema,
  toStrictJsonSchema,
  isStrictContract,
} from './schema-export.js';
export type { JsonSchema } from '../protocol/json-schema.js';
export {
  createMcpTool,
  mcpToolNames,
  mcpRisk,
  mcpActivityPolicy,
  mcpBreakerKey,
  DEFAULT_MCP_CALL_TIMEOUT_MS,
} from './mcp-tool.js';
export type { McpToolDescriptor, McpToolAnnotations } from '../protocol/mcp.js';
