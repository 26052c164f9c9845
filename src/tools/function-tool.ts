// Workflow-safe: the contract side of a registered function tool (docs/tools.md §12).
// The function body runs worker-side; the workflow only needs its name, schema, category and declared risk.
import { z } from 'zod';
import { defineTool, shorten } from './define-tool.js';
import type { ToolContract } from './define-tool.js';
import type { ToolActivityPolicy } from '../protocol/tool-activity.js';
import type { FunctionRisk, FunctionToolSpec } from '../protocol/function-tool-spec.js';

/** The input every function tool receives: one raw string. */
export type FunctionToolInput = { input: string };

/** The model-facing schema of every function tool, exactly as §12 specifies it. */
export const FUNCTION_TOOL_PARAMETERS = {
  type: 'object',
  properties: { input: { type: 'string', description: 'raw input string' } },
  required: ['input'],
  additionalProperties: false,
} as const;

const FUNCTION_RISKS: ReadonlySet<string> = new Set<FunctionRisk>([
  'read_only',
  'write',
  'destructive',
  'network_write',
]);

const functionInput = z.object({ input: z.string().describe('raw input string') }).strict();

/**
 * Default activity settings: read-only functions may be retried like the read tools; anything else may have had an
 * effect before failing, so it runs at most once (as Bash does, §14).
 */
export function functionActivityPolicy(risk: FunctionRisk | undefined): ToolActivityPolicy {
  return risk === 'read_only'
    ? { startToCloseTimeoutMs: 60_000, maximumAttempts: 3 }
    : { startToCloseTimeoutMs: 60_000, maximumAttempts: 1 };
}

/** Builds the contract of a function tool; the registry validates its name when it is registered. */
export function createFunctionTool(spec: FunctionToolSpec): ToolContract<FunctionToolInput> {
  if (spec.risk !== undefined && !FUNCTION_RISKS.has(spec.risk)) {
    throw new Error(`Function tool '${spec.name}': unknown risk '${String(spec.risk)}'.`);
  }
  const concurrencySafe = spec.concurrencySafe ?? false;
  const policy = spec.activity ?? functionActivityPolicy(spec.risk);
  return defineTool<FunctionToolInput>({
    name: spec.name,
    description: spec.description,
    inputSchema: functionInput,
    // §12: a function is a command unless it declares itself read-only, in which case it counts as a read tool
    // everywhere (read_only mode, permission step 2).
    category: spec.risk === 'read_only' ? 'read' : 'command',
    confirmation: 'declared',
    isConcurrencySafe: () => concurrencySafe,
    pathParams: [],
    origin: 'function',
    ...(spec.shouldDefer ? { shouldDefer: true } : {}),
    ...(spec.risk !== undefined ? { risk: spec.risk } : {}),
    activity: () => ({ ...policy }),
    summarize: (args) => `${spec.name} ${shorten(args.input, 100)}`,
  });
}

/** True for contracts created by `createFunctionTool` (they take §12's input mapping and the S7 raw-string rule). */
export function isFunctionTool(contract: ToolContract): boolean {
  return contract.origin === 'function';
}
