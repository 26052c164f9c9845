// Workflow-safe: pure functions, no Node builtins, no I/O.
// The coercion table of docs/tools.md §7 step 3: a value of the wrong JSON type becomes the declared type, or a
// problem.

import type { Repair } from '../../protocol/envelope.js';
import type { RepairSchema } from './json-schema.js';
import { arrayItems, declaredTypes } from './json-schema.js';
import { isPlainObject, jsonTypeOf, parseJsonAs } from './parse-arguments.js';

/** A coerced value, or the JSON type(s) that were expected instead. */
export type CoerceResult = { ok: true; value: unknown } | { ok: false; expected: string };

const INTEGER_TEXT = /^\s*[+-]?\d+(\.0+)?\s*$/;
const NUMBER_TEXT = /^\s*[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?\s*$/;
const TRUE_WORDS = new Set(['true', '1', 'yes', 'y', 'on']);
const FALSE_WORDS = new Set(['false', '0', 'no', 'n', 'off']);

/** True when a value of this JSON type already satisfies one of the declared types. */
export function admits(types: readonly string[], value: unknown): boolean {
  if (types.length === 0) return true;
  const type = jsonTypeOf(value);
  if (type === 'object') return types.includes('object') && isPlainObject(value);
  return types.includes(type) || (type === 'integer' && types.includes('number'));
}

/** Parses an integer written as text (`"10"`, `" +3 "`, `"4.00"`); anything else, `2.5` included, is undefined. */
export function integerFrom(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isInteger(value) ? value : undefined;
  if (typeof value === 'string' && INTEGER_TEXT.test(value)) return Number(value.trim());
  return undefined;
}

/** The boolean a model meant by a word or a 0/1, or undefined when it is not clear (`"maybe"`). */
export function booleanFrom(value: unknown): boolean | undefined {
  if (typeof value === 'boolean') return value;
  if (typeof value === 'number') return value === 1 ? true : value === 0 ? false : undefined;
  if (typeof value !== 'string') return undefined;
  const word = value.trim().toLowerCase();
  return TRUE_WORDS.has(word) ? true : FALSE_WORDS.has(word) ? false : undefined;
}

function coerceRepair(param: string, value: unknown, to: string): Repair {
  return { stage: 'coerce', kind: 'coerce', param, from: jsonTypeOf(value), to };
}

function toType(
  type: string,
  schema: RepairSchema,
  value: unknown,
  param: string,
): { value: unknown; repairs: Repair[] } | undefined {
  switch (type) {
    case 'integer': {
      // Only text is converted: a fractional number is refused rather than truncated.
      if (typeof value !== 'string') return undefined;
      const integer = integerFrom(value);
      return integer === undefined ? undefined : { value: integer, repairs: [coerceRepair(param, value, 'integer')] };
    }
    case 'number':
      return typeof value === 'string' && NUMBER_TEXT.test(value)
        ? { value: Number(value.trim()), repairs: [coerceRepair(param, value, 'number')] }
        : undefined;
    case 'boolean': {
      const boolean = booleanFrom(value);
      return boolean === undefined ? undefined : { value: boolean, repairs: [coerceRepair(param, value, 'boolean')] };
    }
    case 'string':
      return typeof value === 'number' || typeof value === 'boolean'
        ? { value: String(value), repairs: [coerceRepair(param, value, 'string')] }
        : undefined;
    case 'object': {
      if (typeof value !== 'string') return undefined;
      const decoded = parseJsonAs(value.trim(), 'object');
      return decoded.kind === 'value'
        ? { value: decoded.value, repairs: [{ stage: 'coerce', kind: 'string_to_object', param }] }
        : undefined;
    }
    case 'array':
      return toArray(schema, value, param);
    default:
      return undefined;
  }
}

function toArray(
  schema: RepairSchema,
  value: unknown,
  param: string,
): { value: unknown; repairs: Repair[] } | undefined {
  const items = arrayItems(schema);
  const itemTypes = items ? declaredTypes(items) : [];
  if (typeof value === 'string') {
    const decoded = parseJsonAs(value.trim(), 'array');
    if (decoded.kind === 'value')
      return { value: decoded.value, repairs: [{ stage: 'coerce', kind: 'string_to_array', param }] };
    // One element sent as JSON text, e.g. a single edit object encoded as a string.
    if (itemTypes.includes('object')) {
      const single = parseJsonAs(value.trim(), 'object');
      if (single.kind === 'value') {
        return {
          value: [single.value],
          repairs: [
            { stage: 'coerce', kind: 'string_to_object', param },
            { stage: 'coerce', kind: 'wrapped_in_array', param },
          ],
        };
      }
    }
  }
  // A lone element of the item type. Strings are never split on commas: `"a,b"` stays one element.
  if (value !== null && value !== undefined && admits(itemTypes, value)) {
    return { value: [value], repairs: [{ stage: 'coerce', kind: 'wrapped_in_array', param }] };
  }
  return undefined;
}

/**
 * Brings a value to the type its schema declares, trying the declared types in order. A value that already
 * fits is returned as is; repairs are appended to `repairs` only when a conversion succeeds.
 */
export function coerceValue(schema: RepairSchema, value: unknown, param: string, repairs: Repair[]): CoerceResult {
  const types = declaredTypes(schema);
  if (admits(types, value)) return { ok: true, value };
  for (const type of types) {
    const converted = toType(type, schema, value, param);
    if (converted) {
      repairs.push(...converted.repairs);
      return { ok: true, value: converted.value };
    }
  }
  return { ok: false, expected: types.filter((type) => type !== 'null').join(' or ') };
}

const ARTICLES: Readonly<Record<string, string>> = {
  integer: 'an integer',
  number: 'a number',
  boolean: 'a boolean (true or false)',
  string: 'a string',
  array: 'an array',
  object: 'an object',
};

/** "an integer", "a string or an array": the expected type(s) as a model-facing phrase. */
export function describeExpected(expected: string): string {
  return expected
    .split(' or ')
    .map((type) => ARTICLES[type] ?? type)
    .join(' or ');
}
