// Workflow-safe: the tool registry of docs/tools.md §2 (name resolution §3 step 2, deferred tools §16).
// Pure data and functions: the workflow owns one per task and passes breaker and discovery state in as data.
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';
import { canonicalJson } from '../protocol/canonical-json.js';
import type { ToolSchema } from '../protocol/model.js';
import type { ResolvedName, SchemaContext, ToolContract, ToolRegistry } from './define-tool.js';
import { breakerKeysOf } from './define-tool.js';
import { createFunctionTool } from './function-tool.js';
import { isStrictContract, toToolSchema, toInputJsonSchema, toStrictInputJsonSchema } from './schema-export.js';

/** Tool names as the model APIs accept them (§2). */
export const TOOL_NAME_PATTERN = /^[A-Za-z][A-Za-z0-9_-]{0,63}$/;

/** The name used when a tool call carries none (§3 step 2). */
export const MISSING_TOOL_NAME = 'unknown_tool';

// A few models prefix tool names with the namespace the provider used internally.
const NAMESPACE_PREFIX = /^(?:functions|tools|tool)[.:]/i;

/** Creates a registry holding `initial` (for example `builtinTools`), all enabled. */
export function createToolRegistry(initial: readonly ToolContract[] = []): ToolRegistry {
  // Maps, not objects, so that a model calling "toString" or "__proto__" finds nothing.
  const contracts = new Map<string, ToolContract>();
  const lowerNames = new Map<string, string>();
  const aliases = new Map<string, string>();
  const lowerAliases = new Map<string, string>();
  const disabled = new Set<string>();

  const requireKnown = (name: string): void => {
    if (!contracts.has(name)) throw new Error(`Unknown tool '${name}'.`);
  };

  const register = (contract: ToolContract): void => {
    const { name } = contract;
    if (typeof name !== 'string' || !TOOL_NAME_PATTERN.test(name)) {
      throw new Error(`Invalid tool name ${JSON.stringify(name)}: it must match ${String(TOOL_NAME_PATTERN)}.`);
    }
    if (contracts.has(name)) throw new Error(`Tool '${name}' is already registered.`);
    // Two names differing only in case would make the case-insensitive step ambiguous.
    const clash = lowerNames.get(name.toLowerCase());
    if (clash !== undefined)
      throw new Error(
        `Tool '${name}' clashes with the registered tool '${clash}' (names are matched case-insensitively).`,
      );
    for (const alias of contract.aliases ?? []) {
      const owner = lowerAliases.get(alias.toLowerCase());
      if (owner !== undefined && owner !== name) {
        throw new Error(`Alias '${alias}' of tool '${name}' is already an alias of '${owner}'.`);
      }
    }
    // Fail at registration, not on the first model call, when the schema cannot be exported.
    toInputJsonSchema(contract);
    if (isStrictContract(contract)) toStrictInputJsonSchema(contract);

    contracts.set(name, contract);
    lowerNames.set(name.toLowerCase(), name);
    for (const alias of contract.aliases ?? []) {
      aliases.set(alias, name);
      lowerAliases.set(alias.toLowerCase(), name);
    }
  };

  const unregister = (name: string): boolean => {
    const contract = contracts.get(name);
    if (contract === undefined) return false;
    contracts.delete(name);
    lowerNames.delete(name.toLowerCase());
    disabled.delete(name);
    for (const alias of contract.aliases ?? []) {
      if (aliases.get(alias) === name) aliases.delete(alias);
      if (lowerAliases.get(alias.toLowerCase()) === name) lowerAliases.delete(alias.toLowerCase());
    }
    return true;
  };

  const lookup = (candidate: string): string | undefined =>
    contracts.has(candidate)
      ? candidate
      : (lowerNames.get(candidate.toLowerCase()) ??
        aliases.get(candidate) ??
        lowerAliases.get(candidate.toLowerCase()));

  const resolveName = (raw: string | undefined): ResolvedName | undefined => {
    const requested = raw === undefined || raw === '' ? MISSING_TOOL_NAME : raw;
    let name = lookup(requested);
    if (name === undefined) {
      // Beyond §3's three steps: surrounding whitespace and a "functions." prefix are model noise, not intent.
      const stripped = requested.trim().replace(NAMESPACE_PREFIX, '');
      if (stripped !== requested && stripped !== '') name = lookup(stripped);
    }
    if (name === undefined) return undefined;
    return name === requested
      ? { name }
      : { name, repair: { stage: 'name', kind: 'tool_name', from: requested, to: name } };
  };

  const isAllowed = (contract: ToolContract, context: SchemaContext): boolean =>
    !disabled.has(contract.name) &&
    !breakerKeysOf(contract).some((key) => context.openTools?.has(key) ?? false) &&
    (context.mode !== 'read_only' || contract.category === 'read');

  const list = (): ToolContract[] => [...contracts.values()].sort(byName);

  const visible = (context: SchemaContext): ToolContract[] => {
    const allowed = list().filter((contract) => isAllowed(contract, context));
    // ToolSearch is only worth its tokens while there is something to find (§16).
    const anyDeferred = allowed.some((contract) => contract.shouldDefer === true);
    return allowed.filter((contract) => {
      if (contract.shouldDefer === true) return context.discovered?.has(contract.name) ?? false;
      if (contract.listedOnlyWithDeferredTools === true) return anyDeferred || context.listFinders === true;
      return true;
    });
  };

  const getSchemas = (context: SchemaContext): ToolSchema[] => visible(context).map(toToolSchema);

  for (const contract of initial) register(contract);

  return {
    register,
    registerFunction: (spec) => {
      const contract = createFunctionTool(spec) as unknown as ToolContract;
      register(contract);
      return contract;
    },
    unregister,
    get: (name) => contracts.get(name),
    resolveName,
    enable: (name) => {
      requireKnown(name);
      disabled.delete(name);
    },
    disable: (name) => {
      requireKnown(name);
      disabled.add(name);
    },
    isEnabled: (name) => contracts.has(name) && !disabled.has(name),
    list,
    visible,
    getSchemas,
    fingerprint: (context) => bytesToHex(sha256(utf8ToBytes(canonicalJson(getSchemas(context))))),
  };
}

/** Orders contracts by name in code-unit order, which is the same on every machine. */
function byName(left: ToolContract, right: ToolContract): number {
  return left.name < right.name ? -1 : left.name > right.name ? 1 : 0;
}
