// Workflow-safe: tool CONTRACTS and the registry's interface only (data the workflow can import); registry.ts builds
// the registry. Executors with I/O live in activities/.
// A contract's zod schema is the single source of the JSON Schema the model sees and the validation the worker runs.
import type { z } from 'zod';
import type { AgentMode } from '../protocol/agent-mode.js';
import type { Repair } from '../protocol/envelope.js';
import type { FunctionToolSpec } from '../protocol/function-tool-spec.js';
import type { ProfileName } from '../protocol/profile-names.js';
import type { ToolSchema } from '../protocol/model.js';
import type { RiskLevel } from '../protocol/risk-level.js';
import type { ToolActivityPolicy } from '../protocol/tool-activity.js';

/** What a tool does to the world (docs/tools.md §2). */
export type ToolCategory = 'read' | 'write' | 'command';

/**
 * How a call's confirmation level is found (§5.1 step 4): `none` — it only reads; `path` — the file write rules on its
 * `path`; `command` — the shell classifier, run where the workspace is before the decision; `declared` — the risk its
 * registration declared (function and MCP tools; none declared fails closed).
 */
export type ConfirmationRule = 'none' | 'path' | 'command' | 'declared';

/** A profile's place for a tool: offered, or also pinned (shown at every step, whatever the ranking). */
export type ProfilePlace = 'offered' | 'pinned';

/**
 * Where the system prompt names a built-in tool: among the tools to explore with, to change files with (after reading
 * them), or to check the work with.
 */
export type PromptRole = 'explore' | 'change' | 'check';

/** Where a tool comes from: a built-in contract, a registered function (§12) or an MCP server. */
export type ToolOrigin = 'builtin' | 'function' | 'mcp';

/** One parameter alias of §7: `from` is renamed to `to` when `to` is absent. */
export interface ParameterAlias {
  from: string;
  to: string;
}

/** A step in a fallback chain: the tool to try next and how to map the arguments for it. */
export interface ToolFallback<I> {
  tool: string;
  mapInput(input: I): Record<string, unknown>;
}

/** A tool contract: everything about a tool except how it runs. */
export interface ToolContract<I extends Record<string, unknown> = Record<string, unknown>> {
  name: string;
  description: string;
  inputSchema: z.ZodType<I>;
  category: ToolCategory;
  /** How the permission decision classifies a call (the tool's own rule, never its name). */
  confirmation: ConfirmationRule;
  /** The executor checks and updates the task's read state (§8): the workflow sends the entry for the call's path. */
  usesReadState?: boolean;
  isConcurrencySafe(input: I): boolean;
  /** Parameters holding workspace paths, checked at the boundary (§5.1 step 3). */
  pathParams: readonly string[];
  aliases?: readonly string[];
  parameterAliases?: readonly ParameterAlias[];
  activity(input: I): ToolActivityPolicy;
  fallbacks?: readonly ToolFallback<I>[];
  shouldDefer?: boolean;
  /** Where the tool comes from; absent means a built-in. Function and MCP tools are classified by `risk` (§5.1 step 4). */
  origin?: ToolOrigin;
  /** The confirmation level declared at registration (function and MCP tools); absent on them means fail-closed DENY. */
  risk?: RiskLevel;
  /**
   * The input's JSON Schema as the tool's server declared it (MCP): exported as given, non-strict, and driving argument
   * repair; the executor validates against it where the call runs. `inputSchema` then only checks for an object.
   */
  jsonSchema?: Record<string, unknown>;
  /** The registered activity that runs the tool, when it is not the tool's own name (every MCP tool runs through one). */
  activityType?: string;
  /**
   * A second circuit breaker the tool shares (§10): an MCP server's tools share the server's, which its unreachable and
   * timed-out calls count toward; errors of the tool itself count toward the tool's own.
   */
  breakerKey?: string;
  /** Runs inside the workflow itself (ToolSearch): no activity and no executor; deterministic by construction. */
  runInWorkflow?(input: I, context: WorkflowToolContext): WorkflowToolOutcome;
  /**
   * Runs as a child workflow of the same agent (Task): no activity and no executor; the workflow starts the child and
   * its answer is the call's result (core/sub-agents).
   */
  runsAsChild?: boolean;
  /** Offered to the model only while some deferred tool is left to find (ToolSearch, §16). */
  listedOnlyWithDeferredTools?: boolean;
  /** The built-in profiles that offer the tool by name, and whether each pins it (core/tool-selection/profiles). */
  profiles?: Partial<Record<ProfileName, ProfilePlace>>;
  /** Where the system prompt names the tool; a tool without one is not named there. */
  promptRole?: PromptRole;
  /** One-line, human-readable label for the Web UI (`ReadFile src/a.ts:1-200`). */
  summarize(input: I): string;
}

/** What a tool that runs in the workflow can see. */
export interface WorkflowToolContext {
  registry: ToolRegistry;
  mode: AgentMode;
  /** The tools ToolSearch may return when the run selects its tools or has a profile (core/tool-selection). */
  searchScope?: ReadonlySet<string>;
}

/** A workflow tool's result: the envelope's `data` and `text`, and the deferred tools it made callable. */
export interface WorkflowToolOutcome {
  data: Record<string, unknown>;
  text: string;
  discovered: string[];
}

/** The circuit breakers a tool's calls pass (§10): its own, then the one it shares with its server's tools. */
export function breakerKeysOf(contract: Pick<ToolContract, 'name' | 'breakerKey'>): string[] {
  return contract.breakerKey === undefined ? [contract.name] : [contract.name, contract.breakerKey];
}

// The server did not answer: every tool of it would fail alike.
const SERVER_FAILURES: ReadonlySet<string> = new Set(['MCP_NETWORK_ERROR', 'MCP_TIMEOUT']);

/** The breaker a failed call counts toward: the shared one when the server failed, else the tool's own. */
export function failedBreakerKey(
  contract: Pick<ToolContract, 'name' | 'breakerKey'>,
  code: string | undefined,
): string {
  return contract.breakerKey !== undefined && code !== undefined && SERVER_FAILURES.has(code)
    ? contract.breakerKey
    : contract.name;
}

/** Identity helper that keeps each contract's input type (like vercel's `tool()`). */
export function defineTool<I extends Record<string, unknown>>(contract: ToolContract<I>): ToolContract<I> {
  return contract;
}

/** Shortens a value for one-line summaries. */
export function shorten(text: string, max = 80): string {
  const single = text.replace(/\s+/g, ' ').trim();
  return single.length > max ? `${single.slice(0, max - 1)}…` : single;
}

/** What decides which tools the model sees this turn. */
export interface SchemaContext {
  mode: AgentMode;
  /** Breakers (tool names, or an MCP server's shared key) OPEN after the caller's OPEN→HALF_OPEN time check (§10). */
  openTools?: ReadonlySet<string>;
  /** Deferred tools that ToolSearch has discovered in this task (§16). */
  discovered?: ReadonlySet<string>;
  /** List the tools that find others (ToolSearch) even with nothing deferred: a step's selection left tools out. */
  listFinders?: boolean;
}

/** A resolved tool name, with the repair record when the model's spelling was not exact. */
export interface ResolvedName {
  name: string;
  repair?: Repair;
}

/** The per-task set of tools (§2). */
export interface ToolRegistry {
  /**
   * Adds a contract; throws on an invalid or duplicate name, a conflicting alias, or a schema that cannot be exported
   * (for a zod contract: one strict mode cannot express).
   */
  register(contract: ToolContract): void;
  /** Registers a function tool (§12) and returns its contract. */
  registerFunction(spec: FunctionToolSpec): ToolContract;
  /** Removes a tool and its aliases; false when it was not registered. */
  unregister(name: string): boolean;
  /** The contract registered under exactly this name; inherited properties ("toString", "__proto__") never match. */
  get(name: string): ToolContract | undefined;
  /** §3 step 2: exact name, then case-insensitive name, then the alias table; undefined when nothing matches. */
  resolveName(raw: string | undefined): ResolvedName | undefined;
  /** Lists a disabled tool again; throws for an unknown name. */
  enable(name: string): void;
  /** Hides a tool from the schemas; calls to it are denied with `tool_disabled`. Throws for an unknown name. */
  disable(name: string): void;
  /** False for disabled and for unknown tools. */
  isEnabled(name: string): boolean;
  /** Every registered contract, enabled or not, sorted by name. */
  list(): ToolContract[];
  /** The contracts the model may see in this context, sorted by name (§2 filtering). */
  visible(context: SchemaContext): ToolContract[];
  /** `visible(context)` as Chat Completions strict function schemas. */
  getSchemas(context: SchemaContext): ToolSchema[];
  /** sha256 (hex) of the canonical JSON of `getSchemas(context)`. */
  fingerprint(context: SchemaContext): string;
}
