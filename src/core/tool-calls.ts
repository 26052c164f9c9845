// Workflow-safe: turns the model's raw tool calls into a deterministic execution plan (docs/tools.md §3 steps 1-4).
// Pure functions of the turn and the registry, so a replay makes the same plan.
import { parseArguments } from './arguments/parse-arguments.js';
import { fixArguments } from './arguments/fix-arguments.js';
import type { Envelope, ErrorCode, Repair } from '../protocol/envelope.js';
import { abbreviateParams, errorEnvelope } from '../protocol/envelope.js';
import type { RawToolCall, ToolCallMessagePart } from '../protocol/model.js';
import type { ToolContract } from '../tools/define-tool.js';
import { isFunctionTool } from '../tools/function-tool.js';
import { mapFunctionInput } from './function-input.js';
import { canonicalJson } from '../protocol/canonical-json.js';

/** The slice of the tool registry the planner needs. */
export interface ToolLookup {
  resolveName(raw: string | undefined): { name: string; repair?: Repair } | undefined;
  get(name: string): ToolContract | undefined;
  availableNames(): string[];
  /** True for a deferred tool (§16) that ToolSearch has not discovered in this task yet. */
  isUndiscovered(name: string): boolean;
}

/** A call ready to run, one that already has its (error) envelope, or an exact duplicate of an earlier one. */
export type PlannedCall =
  | {
      state: 'ready';
      index: number;
      callId: string;
      tool: ToolContract;
      input: Record<string, unknown>;
      paramsInput: Record<string, unknown>;
      repairs: Repair[];
      ignoredParams: string[];
      concurrencySafe: boolean;
    }
  | { state: 'failed'; index: number; callId: string; toolName: string; envelope: Envelope; concurrencySafe: false }
  /** The same tool and arguments as an earlier call of the turn under the same model id: answered, never run again. */
  | {
      state: 'duplicate';
      index: number;
      callId: string;
      toolName: string;
      duplicateOf: number;
      repairs: Repair[];
      concurrencySafe: false;
    };

/** A call the turn executes itself: ready, or failed with its envelope (duplicates are answered afterwards). */
export type ExecutablePlan = Exclude<PlannedCall, { state: 'duplicate' }>;

/** Consecutive calls that run together: a safe batch fans out, an unsafe batch holds exactly one call. */
export interface Batch {
  safe: boolean;
  calls: ExecutablePlan[];
}

interface NormalizedId {
  id: string;
  /** Index of the earlier call whose id this one duplicated. */
  duplicateOf?: number;
}

/**
 * §3 step 1: fills missing ids deterministically and suffixes duplicates with `#k`. Every final id is unique: the
 * first call carrying a model id keeps it, so those ids are reserved before any id is made up, and a made-up id (an
 * automatic one, or a `#k` rewrite) skips every id already taken — a model may itself send `x`, `x`, `x#2`.
 */
export function normalizeToolCallIds(calls: readonly RawToolCall[], turn: number): NormalizedId[] {
  const given = calls.map((call) => call.id?.trim() ?? '');
  const owners = new Map<string, number>();
  given.forEach((id, index) => {
    if (id !== '' && !owners.has(id)) owners.set(id, index);
  });
  const used = new Set<string>(owners.keys());
  const unused = (base: string, first: string): string => {
    let id = first;
    for (let suffix = 2; used.has(id); suffix++) id = `${base}#${suffix}`;
    used.add(id);
    return id;
  };
  return given.map((id, index) => {
    if (id === '') {
      const auto = `call_auto_${turn}_${index}`;
      return { id: unused(auto, auto) };
    }
    const owner = owners.get(id)!;
    if (owner === index) return { id };
    return { id: unused(id, `${id}#2`), duplicateOf: owner };
  });
}

/** The assistant message's tool_calls, with the ids the tool messages will carry (§13 invariant 3). */
export function toAssistantToolCalls(
  calls: readonly RawToolCall[],
  ids: readonly NormalizedId[],
): ToolCallMessagePart[] {
  return calls.map((call, index) => ({
    id: ids[index]!.id,
    type: 'function',
    function: { name: call.name ?? '', arguments: call.arguments ?? '' },
  }));
}

function failed(
  index: number,
  callId: string,
  toolName: string,
  code: ErrorCode,
  message: string,
  details: Record<string, unknown>,
  extra: { paramsInput?: Record<string, unknown>; repairs?: Repair[]; ignoredParams?: string[] } = {},
): PlannedCall {
  return {
    state: 'failed',
    index,
    callId,
    toolName,
    concurrencySafe: false,
    envelope: errorEnvelope({
      code,
      message,
      details,
      context: {
        tool_call_id: callId,
        cwd: '.',
        params_input: abbreviateParams(extra.paramsInput ?? {}),
        ...(extra.repairs?.length ? { repairs: extra.repairs } : {}),
        ...(extra.ignoredParams?.length ? { ignored_params: extra.ignoredParams } : {}),
      },
    }),
  };
}

/** §3 steps 2-3: resolves names, parses and repairs arguments, and validates each call. */
export function planToolCalls(
  calls: readonly RawToolCall[],
  ids: readonly NormalizedId[],
  tools: ToolLookup,
): PlannedCall[] {
  const plans: PlannedCall[] = [];
  calls.forEach((call, index) => {
    const callId = ids[index]!.id;
    const resolved = tools.resolveName(call.name);
    if (!resolved) {
      const requested = call.name?.trim() ? call.name : 'unknown_tool';
      const available = tools.availableNames();
      plans.push(
        failed(
          index,
          callId,
          requested ?? 'unknown_tool',
          'NOT_FOUND',
          `Unknown tool "${requested}". Available tools: ${available.join(', ')}.`,
          {
            kind: 'unknown_tool',
            requested,
            available_tools: available,
          },
        ),
      );
      return;
    }
    const tool = tools.get(resolved.name)!;
    const nameRepairs = resolved.repair ? [resolved.repair] : [];
    if (tools.isUndiscovered(tool.name)) {
      plans.push(
        failed(
          index,
          callId,
          tool.name,
          'NOT_FOUND',
          `Tool "${tool.name}" is not loaded yet. Use ToolSearch to find and load it, then call it.`,
          {
            kind: 'unknown_tool',
            requested: call.name,
            hint: 'use ToolSearch',
          },
        ),
      );
      return;
    }
    if (!call.complete) {
      // A call cut off mid-stream is never executed, even when its JSON could be closed: a truncated command or path
      // would run as something the model did not ask for.
      plans.push(
        failed(
          index,
          callId,
          tool.name,
          'INVALID_PARAM',
          `The arguments for ${tool.name} were cut off before they were complete, so the call was not run. Re-issue the complete call.`,
          { reason: 'incomplete_arguments', raw_preview: (call.arguments ?? '').slice(0, 200) },
          { repairs: nameRepairs },
        ),
      );
      return;
    }
    const functionTool = isFunctionTool(tool);
    const parsed = parseArguments(call.arguments, { toolName: tool.name, functionTool });
    if (!parsed.ok) {
      plans.push(
        failed(index, callId, tool.name, 'INVALID_PARAM', parsed.message, parsed.details, { repairs: nameRepairs }),
      );
      return;
    }
    const fixed = functionTool ? fixFunctionArguments(tool.name, parsed.value) : fixArguments(tool, parsed.value);
    const repairs = [...nameRepairs, ...parsed.repairs, ...fixed.repairs];
    if (!fixed.ok) {
      plans.push(
        failed(index, callId, tool.name, fixed.code, fixed.message, fixed.details, {
          paramsInput: parsed.value,
          repairs,
          ignoredParams: fixed.ignoredParams,
        }),
      );
      return;
    }
    if (tool.confirmation !== 'none' && parsed.repairs.some((repair) => repair.kind === 'closed_truncated')) {
      // JSON the repair had to close was cut short: a read may go ahead on what arrived, a write, a command or a
      // function must not run as something the model never finished asking for.
      plans.push(
        failed(
          index,
          callId,
          tool.name,
          'INVALID_PARAM',
          `The arguments for ${tool.name} were cut short (they had to be closed to parse), so the call was not run. Re-issue the complete call.`,
          { reason: 'truncated_arguments', raw_preview: (call.arguments ?? '').slice(0, 200) },
          { paramsInput: fixed.normalized, repairs, ignoredParams: fixed.ignoredParams },
        ),
      );
      return;
    }
    const duplicateOf = ids[index]!.duplicateOf;
    const original = duplicateOf === undefined ? undefined : plans[duplicateOf];
    const concurrencySafe = tool.isConcurrencySafe(fixed.input);
    if (
      original?.state === 'ready' &&
      original.tool.name === tool.name &&
      canonicalJson(original.input) === canonicalJson(fixed.input)
    ) {
      plans.push({
        state: 'duplicate',
        index,
        callId,
        toolName: tool.name,
        duplicateOf: original.index,
        repairs,
        concurrencySafe: false,
      });
      return;
    }
    plans.push({
      state: 'ready',
      index,
      callId,
      tool,
      input: fixed.input,
      paramsInput: fixed.normalized,
      repairs,
      ignoredParams: fixed.ignoredParams,
      concurrencySafe,
    });
  });
  return plans;
}

/** §12: function tools take one raw `input` string instead of §7's schema-driven repair. */
function fixFunctionArguments(toolName: string, value: Record<string, unknown>): ReturnType<typeof fixArguments> {
  const mapped = mapFunctionInput(toolName, value);
  if (!mapped.ok)
    return {
      ok: false,
      code: 'INVALID_PARAM',
      message: mapped.message,
      details: mapped.details,
      repairs: [],
      ignoredParams: [],
    };
  return {
    ok: true,
    input: mapped.input,
    normalized: mapped.input,
    repairs: mapped.repairs,
    ignoredParams: mapped.ignoredParams,
  };
}

/** §3 step 4: consecutive concurrency-safe calls share a batch; everything else runs alone. */
export function partition(plans: readonly ExecutablePlan[]): Batch[] {
  const batches: Batch[] = [];
  for (const plan of plans) {
    const last = batches.at(-1);
    if (plan.concurrencySafe && last?.safe) last.calls.push(plan);
    else batches.push({ safe: plan.concurrencySafe, calls: [plan] });
  }
  return batches;
}
