// Workflow-safe: pure functions over zod schemas, no Node builtins, no I/O.
// The JSON Schema view of a tool's input that drives docs/tools.md §7 repairs: the same document the model is shown.

import { z } from 'zod';

/** The subset of a JSON Schema node (draft 2020-12, as zod 4 emits it) that argument repair reads. */
export interface RepairSchema {
  type?: string | string[];
  properties?: Record<string, RepairSchema>;
  required?: string[];
  additionalProperties?: boolean | RepairSchema;
  items?: RepairSchema;
  anyOf?: RepairSchema[];
  oneOf?: RepairSchema[];
  enum?: unknown[];
  const?: unknown;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
}

// Derived once per schema object: conversion walks the whole zod tree and contracts are module-level constants.
const cache = new WeakMap<z.ZodType, RepairSchema>();

/**
 * The input-side JSON Schema of a zod schema (defaults make properties optional, as the model sees them).
 * Types JSON Schema cannot express become `{}`, which repair leaves alone rather than failing.
 */
export function inputJsonSchema(schema: z.ZodType): RepairSchema {
  let converted = cache.get(schema);
  if (!converted) {
    converted = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as RepairSchema;
    cache.set(schema, converted);
  }
  return converted;
}

function typeOfConstant(value: unknown): string {
  if (value === null) return 'null';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

/** The JSON types a schema admits, in declaration order; empty when it admits anything. */
export function declaredTypes(schema: RepairSchema): string[] {
  const types: string[] = [];
  const add = (type: string): void => {
    if (!types.includes(type)) types.push(type);
  };
  if (typeof schema.type === 'string') add(schema.type);
  else if (Array.isArray(schema.type)) schema.type.forEach(add);
  else if (schema.enum) schema.enum.forEach((value) => add(typeOfConstant(value)));
  else if ('const' in schema) add(typeOfConstant(schema.const));
  for (const branch of [...(schema.anyOf ?? []), ...(schema.oneOf ?? [])]) {
    const inner = declaredTypes(branch);
    // A branch that admits anything makes the whole schema admit anything.
    if (inner.length === 0) return [];
    inner.forEach(add);
  }
  return types;
}

/** True when the schema accepts this string as it is (a plain string type, or an enum/const listing it). */
export function acceptsString(schema: RepairSchema, value: string): boolean {
  const branches = [...(schema.anyOf ?? []), ...(schema.oneOf ?? [])];
  if (branches.some((branch) => acceptsString(branch, value))) return true;
  if (schema.enum) return schema.enum.includes(value);
  if ('const' in schema) return schema.const === value;
  const types = typeof schema.type === 'string' ? [schema.type] : (schema.type ?? []);
  return types.includes('string') || (types.length === 0 && branches.length === 0);
}

/** The object schema among a schema's branches, if it describes an object with known properties. */
export function objectShape(schema: RepairSchema | undefined): RepairSchema | undefined {
  if (!schema) return undefined;
  if (schema.properties) return schema;
  for (const branch of [...(schema.anyOf ?? []), ...(schema.oneOf ?? [])]) {
    const shape = objectShape(branch);
    if (shape) return shape;
  }
  return undefined;
}

/** The item schema of an array schema, looking through unions. */
export function arrayItems(schema: RepairSchema): RepairSchema | undefined {
  if (schema.items) return schema.items;
  for (const branch of [...(schema.anyOf ?? []), ...(schema.oneOf ?? [])]) {
    const items = arrayItems(branch);
    if (items) return items;
  }
  return undefined;
}

/** The schema of a property reached by a zod issue path (`["edits", 0, "old_string"]`). */
export function schemaAt(schema: RepairSchema, path: readonly PropertyKey[]): RepairSchema | undefined {
  let current: RepairSchema | undefined = schema;
  for (const segment of path) {
    if (!current) return undefined;
    if (typeof segment === 'number') current = arrayItems(current);
    else {
      const shape = objectShape(current);
      const properties = shape?.properties;
      current = properties && Object.hasOwn(properties, String(segment)) ? properties[String(segment)] : undefined;
    }
  }
  return current;
}
