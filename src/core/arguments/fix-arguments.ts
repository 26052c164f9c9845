// Workflow-safe: pure functions, no Node builtins, no I/O, no clock.
// Rule-based argument fixing (docs/tools.md §7): aliases, nulls, coercion, unknown and reserved keys, then validation.
//
// Repairs are driven by the JSON Schema zod derives from the contract (`z.toJSONSchema`, cached per schema) rather
// than by walking zod's internal definitions: it is zod's public, documented output, and it is exactly the document
// the model was shown, so "the declared type" means what the model was told. Validation still uses the zod schema.

import type { z } from 'zod';
import type { Repair } from '../../protocol/envelope.js';
import type { ParameterAlias, ToolContract } from '../../tools/define-tool.js';
import type { RepairSchema } from './json-schema.js';
import { acceptsString, arrayItems, declaredTypes, inputJsonSchema, objectShape, schemaAt } from './json-schema.js';
import { booleanFrom, coerceValue, describeExpected, integerFrom } from './coerce.js';
import { isPlainObject } from './parse-arguments.js';

/** The outcome of §7: validated input (defaults applied) and the repaired arguments, or an INVALID_PARAM error. */
export type FixResult =
  | {
      ok: true;
      /** Validated by the contract's schema, defaults applied: what the executor runs with. */
      input: Record<string, unknown>;
      /** After repair, before defaults: what `context.params_input` echoes. */
      normalized: Record<string, unknown>;
      repairs: Repair[];
      ignoredParams: string[];
    }
  | {
      ok: false;
      code: 'INVALID_PARAM';
      message: string;
      details: Record<string, unknown>;
      repairs: Repair[];
      ignoredParams: string[];
    };

/** Keys that carry the optimistic lock; the lock is never taken from the model (§8). */
export const RESERVED_KEYS: ReadonlySet<string> = new Set([
  'expected_mtime_ms',
  'expected_size_bytes',
  'expected_sha256',
  'file_mtime_ms',
]);

const NULL_WORDS: ReadonlySet<string> = new Set(['null', 'undefined', 'None']);

type Derived = { ok: true; value: unknown } | { ok: false; expected: string };

/** An alias whose value is computed rather than copied (§7 step 1, the two special rows). */
interface DerivedAlias {
  from: string;
  to: string;
  derive(value: unknown, siblings: ReadonlyMap<string, unknown>): Derived;
}

const negated = (value: unknown): Derived => {
  const boolean = booleanFrom(value);
  return boolean === undefined ? { ok: false, expected: 'boolean' } : { ok: true, value: !boolean };
};

const DERIVED_ALIASES: Readonly<Record<string, readonly DerivedAlias[]>> = {
  ReadFile: [
    {
      from: 'end_line',
      to: 'limit',
      derive: (value, siblings) => {
        const endLine = integerFrom(value);
        const offsetValue = siblings.get('offset');
        const offset = isNullish(offsetValue) ? 1 : integerFrom(offsetValue);
        if (endLine === undefined || offset === undefined) return { ok: false, expected: 'integer' };
        return { ok: true, value: endLine - offset + 1 };
      },
    },
  ],
  Grep: [
    { from: 'ignore_case', to: 'case_sensitive', derive: negated },
    { from: '-i', to: 'case_sensitive', derive: negated },
  ],
};

interface Problem {
  param: string;
  expected: string;
  got: unknown;
}

interface Fixing {
  repairs: Repair[];
  ignored: string[];
  problems: Problem[];
  missing: string[];
  aliases: readonly ParameterAlias[];
}

function isNullish(value: unknown): boolean {
  return value === null || value === undefined;
}

/**
 * Null, undefined, and the words "null"/"undefined"/"None" count as absent. The words only where the property
 * would not take that string as a value: EditFile's `old_string: "None"` is Python source, not a missing value.
 */
function isNullFor(schema: RepairSchema, value: unknown): boolean {
  if (isNullish(value)) return !declaredTypes(schema).includes('null');
  return typeof value === 'string' && NULL_WORDS.has(value) && !acceptsString(schema, value);
}

function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  // defineProperty, so a key such as "__proto__" is stored as data and never touches the prototype.
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

function fixObject(
  schema: RepairSchema,
  value: Record<string, unknown>,
  prefix: string,
  derivedAliases: readonly DerivedAlias[],
  fixing: Fixing,
): Record<string, unknown> {
  const properties = schema.properties ?? {};
  const known = (key: string): boolean => Object.hasOwn(properties, key);
  const nameOf = (key: string): string => (prefix === '' ? key : `${prefix}.${key}`);
  const drop = (key: string, kind: 'dropped_unknown' | 'dropped_reserved' | 'dropped_null'): void => {
    fixing.repairs.push({ stage: 'drop', kind, param: nameOf(key) });
  };
  const ignore = (key: string): void => {
    fixing.ignored.push(nameOf(key));
    drop(key, 'dropped_unknown');
  };

  const given = new Map(Object.entries(value));
  const present = (entries: ReadonlyMap<string, unknown>, key: string): boolean =>
    entries.has(key) && !isNullish(entries.get(key));

  // Step 1: an alias fills its canonical key only when the model did not also send that key.
  const aliasTarget = new Map(fixing.aliases.filter((alias) => known(alias.to)).map((alias) => [alias.from, alias.to]));
  const renamed = new Map<string, string>();
  const claimed = new Set<string>();
  for (const key of given.keys()) {
    const target = known(key) ? undefined : aliasTarget.get(key);
    if (target === undefined) continue;
    if (present(given, target) || claimed.has(target)) continue;
    renamed.set(key, target);
    claimed.add(target);
  }
  const entries = new Map<string, unknown>();
  for (const [key, item] of given) {
    const target = renamed.get(key);
    if (target !== undefined) {
      fixing.repairs.push({ stage: 'alias', kind: 'alias', from: nameOf(key), to: nameOf(target) });
      entries.set(target, item);
    } else if (!known(key) && aliasTarget.has(key)) {
      ignore(key);
    } else if (!claimed.has(key)) {
      entries.set(key, item);
    }
  }
  for (const alias of derivedAliases) {
    if (!entries.has(alias.from)) continue;
    const item = entries.get(alias.from);
    entries.delete(alias.from);
    if (isNullish(item) || (typeof item === 'string' && NULL_WORDS.has(item))) drop(alias.from, 'dropped_null');
    else if (present(entries, alias.to)) ignore(alias.from);
    else {
      const derived = alias.derive(item, entries);
      if (derived.ok) {
        fixing.repairs.push({ stage: 'alias', kind: 'alias', from: nameOf(alias.from), to: nameOf(alias.to) });
        entries.set(alias.to, derived.value);
      } else fixing.problems.push({ param: nameOf(alias.from), expected: derived.expected, got: item });
    }
  }

  // Steps 2–4, key by key in the order the model wrote them.
  const fixed: Record<string, unknown> = {};
  for (const [key, item] of entries) {
    if (RESERVED_KEYS.has(key)) {
      drop(key, 'dropped_reserved');
      continue;
    }
    const property = known(key) ? properties[key] : undefined;
    if (!property) {
      if (schema.additionalProperties === false) ignore(key);
      else setOwn(fixed, key, item);
      continue;
    }
    // A required property sent as null is dropped too, and then reported as missing. A JSON null on an optional
    // property is how OpenAI strict mode says "absent" (our strict schemas make every optional field nullable),
    // so it is dropped without a repair record: it is not a mistake and would only add noise to every envelope.
    if (isNullFor(property, item)) {
      if (item !== null || (schema.required ?? []).includes(key)) drop(key, 'dropped_null');
      continue;
    }
    const coerced = coerceValue(property, item, nameOf(key), fixing.repairs);
    if (!coerced.ok) {
      fixing.problems.push({ param: nameOf(key), expected: coerced.expected, got: item });
      setOwn(fixed, key, item);
      continue;
    }
    setOwn(fixed, key, prefix === '' ? fixNested(property, coerced.value, nameOf(key), fixing) : coerced.value);
  }

  for (const key of schema.required ?? []) {
    if (!Object.hasOwn(fixed, key)) fixing.missing.push(nameOf(key));
  }
  return fixed;
}

/** The same rules one level down: the items of an array of objects, or the properties of an object. */
function fixNested(schema: RepairSchema, value: unknown, param: string, fixing: Fixing): unknown {
  if (Array.isArray(value)) {
    const items = arrayItems(schema);
    if (!items) return value;
    const shape = objectShape(items);
    return value.map((item: unknown, index) => {
      const itemParam = `${param}[${index}]`;
      const coerced = coerceValue(items, item, itemParam, fixing.repairs);
      if (!coerced.ok) {
        fixing.problems.push({ param: itemParam, expected: coerced.expected, got: item });
        return item;
      }
      return shape && isPlainObject(coerced.value)
        ? fixObject(shape, coerced.value, itemParam, [], fixing)
        : coerced.value;
    });
  }
  const shape = objectShape(schema);
  return shape && isPlainObject(value) ? fixObject(shape, value, param, [], fixing) : value;
}

function formatPath(path: readonly PropertyKey[]): string {
  return path.reduce<string>((text, segment) => {
    if (typeof segment === 'number') return `${text}[${segment}]`;
    return text === '' ? String(segment) : `${text}.${String(segment)}`;
  }, '');
}

function valueAt(value: unknown, path: readonly PropertyKey[]): unknown {
  let current = value;
  for (const segment of path) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<PropertyKey, unknown>)[segment];
  }
  return current;
}

const GOT_PREVIEW_CHARS = 100;

function describeGot(value: unknown): string {
  const text = value === undefined ? 'undefined' : JSON.stringify(value);
  return text.length > GOT_PREVIEW_CHARS ? `${text.slice(0, GOT_PREVIEW_CHARS)}…` : text;
}

function shortValue(value: unknown): unknown {
  return typeof value === 'string' && value.length > GOT_PREVIEW_CHARS
    ? `${value.slice(0, GOT_PREVIEW_CHARS)}…`
    : value;
}

// zod reports integer bounds it adds itself (`.int()` implies ±2^53-1); those are not limits a model should see.
function bound(value: number | undefined): number | null {
  return value === undefined || Math.abs(value) >= Number.MAX_SAFE_INTEGER ? null : value;
}

function describeRange(min: number | null, max: number | null): string {
  if (min !== null && max !== null) return `${min}..${max}`;
  if (min !== null) return `>= ${min}`;
  if (max !== null) return `<= ${max}`;
  return 'a valid number';
}

const NUMERIC_ORIGINS: ReadonlySet<string> = new Set(['number', 'int', 'bigint']);

function validationFailure(tool: string, schema: RepairSchema, normalized: Record<string, unknown>, error: z.ZodError) {
  const issues = error.issues;
  const first = issues[0];
  const param = first ? formatPath(first.path) : '';
  if (first && (first.code === 'too_small' || first.code === 'too_big') && NUMERIC_ORIGINS.has(first.origin)) {
    const property = schemaAt(schema, first.path) ?? {};
    const min = bound(property.minimum ?? property.exclusiveMinimum);
    const max = bound(property.maximum ?? property.exclusiveMaximum);
    const got = valueAt(normalized, first.path);
    return {
      message: `Parameter '${param}' of ${tool} is out of range: got ${describeGot(got)}, expected ${describeRange(min, max)}. Re-issue the call with a value in range.`,
      details: { reason: 'out_of_range', param, min, max, got },
    };
  }
  const problem = first?.message ?? 'invalid value';
  return {
    message:
      param === ''
        ? `Invalid arguments for ${tool}: ${problem}. Re-issue the call with corrected arguments.`
        : `Invalid value for parameter '${param}' of ${tool}: ${problem}. Re-issue the call with a corrected value.`,
    details: {
      reason: 'schema_violation',
      param,
      expected: problem,
      issues: issues.map((issue) => ({ param: formatPath(issue.path), message: issue.message })),
    },
  };
}

/**
 * §7: repairs already-parsed arguments against a tool contract's schema, then validates them with it.
 * Model mistakes come back as INVALID_PARAM data; nothing here throws for bad input.
 */
export function fixArguments<I extends Record<string, unknown>>(
  contract: ToolContract<I>,
  value: Record<string, unknown>,
): FixResult {
  // A schema the tool's server declared (MCP) is what the model was shown; zod's own is only an object check then.
  const schema = (contract.jsonSchema as RepairSchema | undefined) ?? inputJsonSchema(contract.inputSchema);
  const shape = objectShape(schema) ?? schema;
  const fixing: Fixing = {
    repairs: [],
    ignored: [],
    problems: [],
    missing: [],
    aliases: contract.parameterAliases ?? [],
  };
  const derived = Object.hasOwn(DERIVED_ALIASES, contract.name) ? (DERIVED_ALIASES[contract.name] ?? []) : [];
  const normalized = fixObject(shape, value, '', derived, fixing);
  const { repairs, ignored: ignoredParams } = fixing;
  const fail = (message: string, details: Record<string, unknown>): FixResult => ({
    ok: false,
    code: 'INVALID_PARAM',
    message,
    details,
    repairs,
    ignoredParams,
  });

  if (fixing.missing.length > 0) {
    return fail(
      `Missing required parameter(s) for ${contract.name}: ${fixing.missing.join(', ')}. Re-issue the call including them.`,
      { reason: 'missing_required', missing: fixing.missing },
    );
  }

  if (fixing.problems.length > 0) {
    const [first] = fixing.problems as [Problem, ...Problem[]];
    const sentences = fixing.problems.map(
      (problem) =>
        `Invalid value for parameter '${problem.param}' of ${contract.name}: expected ${describeExpected(problem.expected)}, got ${describeGot(problem.got)}.`,
    );
    return fail(
      `${sentences.join(' ')} Re-issue the call with ${fixing.problems.length > 1 ? 'corrected values' : 'a corrected value'}.`,
      {
        reason: 'invalid_type',
        param: first.param,
        expected: first.expected,
        got: shortValue(first.got),
        ...(fixing.problems.length > 1
          ? { problems: fixing.problems.map((problem) => ({ ...problem, got: shortValue(problem.got) })) }
          : {}),
      },
    );
  }

  const parsed = contract.inputSchema.safeParse(normalized);
  if (!parsed.success) {
    const failure = validationFailure(contract.name, schema, normalized, parsed.error);
    return fail(failure.message, failure.details);
  }
  return { ok: true, input: parsed.data, normalized, repairs, ignoredParams };
}
