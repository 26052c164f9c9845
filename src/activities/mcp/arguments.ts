// Node: an MCP tool's arguments checked against the JSON Schema its server declared, with ajv, before the call is
// sent: a violation comes back to the model as MCP_PARAM_ERROR naming every problem, and the server never sees it.
import type { ErrorObject, ValidateFunction } from 'ajv';
import { LRUCache } from 'lru-cache';
import { draft07, draft2020 } from '../../json-schema/validators.js';

const compiled = new LRUCache<string, ValidateFunction>({ max: 500 });

/** The schema's validator; throws when it is not a usable JSON Schema. */
export function compileToolSchema(schema: Record<string, unknown>): ValidateFunction {
  const key = JSON.stringify(schema);
  const cached = compiled.get(key);
  if (cached) return cached;
  const { $schema, ...rest } = schema;
  // Servers declare draft-07 (zod-to-json-schema) or 2020-12 (zod 4); each is compiled by the dialect it names.
  const dialect = typeof $schema === 'string' && /draft-0[4-7]/.test($schema) ? draft07 : draft2020;
  const validate = dialect.compile(rest);
  compiled.set(key, validate);
  return validate;
}

/** Every violation of `args` as one sentence each, or an empty list when they match. */
export function argumentProblems(schema: Record<string, unknown>, args: Record<string, unknown>): string[] {
  const validate = compileToolSchema(schema);
  return validate(args) ? [] : (validate.errors ?? []).map(describeError);
}

function describeError(error: ErrorObject): string {
  const where = error.instancePath === '' ? 'the arguments' : `'${error.instancePath.slice(1).replace(/\//g, '.')}'`;
  if (error.keyword === 'additionalProperties') {
    return `${where} must not have '${String((error.params as { additionalProperty?: string }).additionalProperty)}'`;
  }
  return `${where} ${error.message ?? 'is invalid'}`;
}
