// Workflow-safe: the contract side of a tool an MCP server offers. The server runs the tool; the workflow needs its name,
// its JSON Schema as given, and the safety its annotations declare (risk, concurrency, retries).
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';
import { z } from 'zod';
import { ACTIVITY } from '../protocol/activity-names.js';
import { defineTool, shorten } from './define-tool.js';
import type { ToolContract } from './define-tool.js';
import type { ToolActivityPolicy } from '../protocol/tool-activity.js';
import type { RiskLevel } from '../protocol/risk-level.js';
import type { McpToolAnnotations, McpToolDescriptor } from '../protocol/mcp.js';

/** The four hints, in the order MCP lists them (its annotations also carry a title, which is no hint). */
export const MCP_HINT_KEYS = ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'] as const;

/** A call's time limit when the server's settings give none. */
export const DEFAULT_MCP_CALL_TIMEOUT_MS = 300_000;

// Temporal gives the activity this much beyond the call's own limit, so the call's timeout is reported as MCP_TIMEOUT.
const ACTIVITY_MARGIN_MS = 15_000;

const TOOL_NAME_LIMIT = 64;
const HASH_CHARS = 8;

// Anything object-shaped: the server's JSON Schema is checked where the call runs (ajv), not by zod.
const anyObject = z.record(z.string(), z.unknown()) as z.ZodType<Record<string, unknown>>;

/** The breaker every tool of `server` shares: a crashed server takes all of its tools out of the list together. */
export function mcpBreakerKey(server: string): string {
  return `mcp:${server}`;
}

/**
 * The confirmation level of an MCP tool's annotations. No hints at all → `unclassified` (it asks every time: a server
 * that says nothing is neither trusted nor refused). Otherwise MCP's defaults apply to the hints left out: read-only →
 * `read_only`; destructive (the default of a tool that is not read-only) → `destructive`; a non-destructive write →
 * `network_write` when it reaches an open world (the default), else `write` — every one of them asks.
 */
export function mcpRisk(annotations: McpToolAnnotations | undefined): RiskLevel {
  if (!annotations || !hasHints(annotations)) return 'unclassified';
  if (annotations.readOnlyHint === true) return 'read_only';
  if (annotations.destructiveHint !== false) return 'destructive';
  return annotations.openWorldHint === false ? 'write' : 'network_write';
}

/** Read-only and idempotent tools may be retried after a lost worker or connection; anything else runs at most once. */
export function mcpActivityPolicy(
  descriptor: Pick<McpToolDescriptor, 'annotations' | 'timeoutMs'>,
): ToolActivityPolicy {
  const hints = descriptor.annotations;
  const repeatable = hints?.readOnlyHint === true || hints?.idempotentHint === true;
  return {
    startToCloseTimeoutMs: (descriptor.timeoutMs ?? DEFAULT_MCP_CALL_TIMEOUT_MS) + ACTIVITY_MARGIN_MS,
    maximumAttempts: repeatable ? 3 : 1,
  };
}

/** The contract of an MCP tool; the registry checks its name and schema when it is registered. */
export function createMcpTool(descriptor: McpToolDescriptor): ToolContract {
  const readOnly = descriptor.annotations?.readOnlyHint === true;
  const policy = mcpActivityPolicy(descriptor);
  const label = `${descriptor.server}/${descriptor.tool}`;
  return defineTool<Record<string, unknown>>({
    name: descriptor.name,
    description: descriptor.description.trim() || `The ${descriptor.tool} tool of the MCP server ${descriptor.server}.`,
    inputSchema: anyObject,
    jsonSchema: descriptor.inputSchema,
    // A read-only tool counts as a read tool everywhere (read_only mode, concurrency); anything else is a command.
    category: readOnly ? 'read' : 'command',
    confirmation: 'declared',
    risk: mcpRisk(descriptor.annotations),
    isConcurrencySafe: () => readOnly,
    pathParams: [],
    origin: 'mcp',
    activityType: ACTIVITY.callMcpTool,
    breakerKey: mcpBreakerKey(descriptor.server),
    activity: () => ({ ...policy }),
    summarize: (args) => `${label} ${shorten(JSON.stringify(args), 100)}`,
  });
}

/**
 * Registry names for tools of MCP servers, in the order given: `mcp__<server>__<tool>` with every character the
 * registry's name pattern does not allow replaced by `_`; a name too long, or taken (names are matched
 * case-insensitively), is cut and ends in a short hash of server and tool, so it stays unique and stable.
 */
export function mcpToolNames(tools: readonly { server: string; tool: string }[]): string[] {
  const taken = new Set<string>();
  return tools.map(({ server, tool }) => {
    const base = `mcp__${sanitize(server)}__${sanitize(tool)}`;
    let name = base.length <= TOOL_NAME_LIMIT ? base : hashed(base, `${server}\u0000${tool}`);
    for (let round = 1; taken.has(name.toLowerCase()); round++) {
      name = hashed(base, `${server}\u0000${tool}\u0000${round}`);
    }
    taken.add(name.toLowerCase());
    return name;
  });
}

function sanitize(part: string): string {
  return part.replace(/[^A-Za-z0-9_-]/g, '_');
}

function hashed(base: string, seed: string): string {
  const hash = bytesToHex(sha256(utf8ToBytes(seed))).slice(0, HASH_CHARS);
  return `${base.slice(0, TOOL_NAME_LIMIT - HASH_CHARS - 1)}_${hash}`;
}

function hasHints(annotations: McpToolAnnotations): boolean {
  return MCP_HINT_KEYS.some((key) => typeof annotations[key] === 'boolean');
}
