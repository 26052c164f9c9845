// Workflow-safe: a tool contract's input as JSON Schema, plain or rewritten for strict function calling, and the
// contract as a function description (protocol ToolSchema), which the registry lists and fingerprints. The zod input
// schema is the only source (docs/tools.md §2, §12); each provider renders its API's tool shape from these
// (src/providers/<api>/).
import { z } from 'zod';
import type { ToolSchema } from '../protocol/model.js';
import type { ToolContract } from './define-tool.js';
import type { JsonSchema } from '../protocol/json-schema.js';

// Keywords first in this order, then any others alphabetically: readers see type and description first, and the
// output is byte-stable whatever order zod emits (§12's function schema is specified byte for byte).
const KEYWORD_ORDER = [
  'type',
  'description',
  'enum',
  'const',
  'format',
  'pattern',
  'minimum',
  'exclusiveMinimum',
  'maximum',
  'exclusiveMaximum',
  'multipleOf',
  'minLength',
  'maxLength',
  'minItems',
  'maxItems',
  'default',
  'anyOf',
  'items',
  'properties',
  'required',
  'additionalProperties',
];

// OpenAI strict mode ("Structured Outputs: supported schemas") accepts, besides the structural keywords:
// strings `pattern` and `format` (only the formats below); numbers `minimum`, `maximum`, `exclusiveMinimum`,
// `exclusiveMaximum`, `multipleOf`; arrays `minItems`, `maxItems`. It rejects `default` outright and does not list
// `minLength`/`maxLength`, so those are dropped; every dropped bound is still enforced by our own zod validation,
// which answers with INVALID_PARAM out_of_range (§7), so nothing is lost but a hint. Defaults move into the
// field's description instead, because the model should still know what leaving a field null means.
const STRICT_KEYWORDS = new Set([
  'type',
  'description',
  'enum',
  'const',
  'format',
  'pattern',
  'minimum',
  'exclusiveMinimum',
  'maximum',
  'exclusiveMaximum',
  'multipleOf',
  'minItems',
  'maxItems',
  'anyOf',
  'items',
  'properties',
  'required',
  'additionalProperties',
  '$defs',
  '$ref',
]);

const STRICT_FORMATS = new Set(['date-time', 'time', 'date', 'duration', 'email', 'hostname', 'ipv4', 'ipv6', 'uuid']);

const PRIMITIVE_TYPES = new Set(['string', 'number', 'integer', 'boolean']);

// Contracts are immutable data, so their exported schema is computed once; callers get a fresh copy each time.
const baseSchemaCache = new WeakMap<ToolContract, string>();
const strictSchemaCache = new WeakMap<ToolContract, string>();

/**
 * The contract's input as plain JSON Schema: what the model may send, with defaults and bounds, no `$schema`. A schema
 * the tool's server declared (MCP) is passed on as given, only without `$schema`.
 */
export function toInputJsonSchema(contract: ToolContract): JsonSchema {
  let text = baseSchemaCache.get(contract);
  if (text === undefined) {
    const cleaned = contract.jsonSchema
      ? withoutSchemaKeyword(contract.jsonSchema)
      : normalizeSchema(z.toJSONSchema(contract.inputSchema, { io: 'input' }) as JsonSchema);
    // A declared schema may leave `properties` out (a tool without parameters); zod's never does.
    if (cleaned.type !== 'object' || !(isRecord(cleaned.properties) || (contract.jsonSchema && !cleaned.properties))) {
      throw new Error(
        `Tool '${contract.name}': the input schema must be a z.object(), got ${JSON.stringify(cleaned.type)}.`,
      );
    }
    text = JSON.stringify(cleaned);
    baseSchemaCache.set(contract, text);
  }
  return JSON.parse(text) as JsonSchema;
}

/** The contract's input rewritten for OpenAI strict mode: every property required, optional ones nullable. */
export function toStrictInputJsonSchema(contract: ToolContract): JsonSchema {
  let text = strictSchemaCache.get(contract);
  if (text === undefined) {
    text = JSON.stringify(toStrictJsonSchema(toInputJsonSchema(contract), contract.name));
    strictSchemaCache.set(contract, text);
  }
  return JSON.parse(text) as JsonSchema;
}

/** Whether the contract's schema is exported for strict mode: every zod contract; a declared (MCP) schema never is. */
export function isStrictContract(contract: ToolContract): boolean {
  return contract.jsonSchema === undefined;
}

/**
 * The contract as a function description: its name, description and parameters, strict unless its schema was declared
 * by its server (which strict mode could rarely express). It is the Chat Completions tool shape, which the other APIs'
 * shapes are derived from; the registry's `getSchemas` lists it.
 */
export function toToolSchema(contract: ToolContract): ToolSchema {
  const strict = isStrictContract(contract);
  return {
    type: 'function',
    function: {
      name: contract.name,
      description: contract.description,
      parameters: strict ? toStrictInputJsonSchema(contract) : toInputJsonSchema(contract),
      strict,
    },
  };
}

/** Rewrites any object JSON Schema for OpenAI strict mode (see STRICT_KEYWORDS for what is kept). */
export function toStrictJsonSchema(schema: JsonSchema, toolName = 'tool'): JsonSchema {
  if (schema.type !== 'object') {
    throw new Error(`Tool '${toolName}': strict mode needs an object at the root.`);
  }
  return orderKeywords(strictNode(schema, toolName, 'parameters'));
}

function strictNode(node: JsonSchema, toolName: string, where: string): JsonSchema {
  const result: JsonSchema = {};
  for (const [keyword, value] of Object.entries(node)) {
    if (!STRICT_KEYWORDS.has(keyword)) continue;
    if (keyword === 'format' && !(typeof value === 'string' && STRICT_FORMATS.has(value))) continue;
    result[keyword] = value;
  }
  if ('default' in node && node.default !== null && node.default !== undefined) {
    result.description = withDefault(typeof node.description === 'string' ? node.description : '', node.default);
  }

  if (isRecord(node.properties)) {
    if (node.additionalProperties !== undefined && node.additionalProperties !== false) {
      throw new Error(`Tool '${toolName}': ${where} allows additional properties, which strict mode cannot express.`);
    }
    const required = new Set(Array.isArray(node.required) ? (node.required as string[]) : []);
    const properties: JsonSchema = {};
    for (const name of Object.keys(node.properties).sort()) {
      const child = node.properties[name];
      if (!isRecord(child)) throw new Error(`Tool '${toolName}': ${where}.${name} is not a schema object.`);
      const converted = strictNode(child, toolName, `${where}.${name}`);
      // The model must send every key in strict mode; null stands for "omitted" and the argument fixer drops it (§7).
      properties[name] = required.has(name) ? converted : nullable(converted);
    }
    result.properties = properties;
    result.required = Object.keys(properties);
    result.additionalProperties = false;
  } else if (node.type === 'object') {
    // An object without declared properties would accept anything, which strict mode forbids.
    throw new Error(
      `Tool '${toolName}': ${where} is an object without declared properties, which strict mode cannot express.`,
    );
  }
  if (isRecord(node.items)) result.items = strictNode(node.items, toolName, `${where}[]`);
  if (Array.isArray(node.anyOf)) {
    result.anyOf = node.anyOf.map((variant, index) => {
      if (!isRecord(variant)) throw new Error(`Tool '${toolName}': ${where}.anyOf[${index}] is not a schema object.`);
      return strictNode(variant, toolName, `${where}.anyOf[${index}]`);
    });
  }
  if (isRecord(node.$defs)) {
    result.$defs = Object.fromEntries(
      Object.entries(node.$defs).map(([name, definition]) => [
        name,
        isRecord(definition) ? strictNode(definition, toolName, `$defs.${name}`) : definition,
      ]),
    );
  }
  return result;
}

/** Allows null besides the node's own type, keeping `enum` consistent with it. */
function nullable(node: JsonSchema): JsonSchema {
  if (acceptsNull(node)) return node;
  if (typeof node.type === 'string' && PRIMITIVE_TYPES.has(node.type)) {
    const result: JsonSchema = { ...node, type: [node.type, 'null'] };
    if (Array.isArray(node.enum)) result.enum = [...(node.enum as unknown[]), null];
    if ('const' in node) {
      delete result.const;
      result.enum = [node.const, null];
    }
    return result;
  }
  if (Array.isArray(node.anyOf)) return { ...node, anyOf: [...(node.anyOf as unknown[]), { type: 'null' }] };
  // Objects and arrays: a union keeps their structural keywords in one branch; the description stays outside it.
  const { description, ...rest } = node;
  return {
    ...(typeof description === 'string' ? { description } : {}),
    anyOf: [rest, { type: 'null' }],
  };
}

function acceptsNull(node: JsonSchema): boolean {
  if (node.type === 'null') return true;
  if (Array.isArray(node.type) && node.type.includes('null')) return true;
  return Array.isArray(node.anyOf) && node.anyOf.some((variant) => isRecord(variant) && acceptsNull(variant));
}

function withDefault(description: string, value: unknown): string {
  const trimmed = description.trim();
  const lead = trimmed === '' ? '' : /[.!?]$/.test(trimmed) ? `${trimmed} ` : `${trimmed}. `;
  return `${lead}Default: ${JSON.stringify(value)}.`;
}

/**
 * Cleans zod's output for every format: drops `$schema`, drops the ±2^53-1 bounds zod adds to every `.int()`
 * (noise the model does not need), sorts property names and `required`, and orders keywords canonically.
 */
function normalizeSchema(node: JsonSchema): JsonSchema {
  const result: JsonSchema = {};
  for (const [keyword, value] of Object.entries(node)) {
    if (keyword === '$schema') continue;
    if (keyword === 'maximum' && value === Number.MAX_SAFE_INTEGER) continue;
    if (keyword === 'minimum' && value === Number.MIN_SAFE_INTEGER) continue;
    if (keyword === 'properties' && isRecord(value)) {
      result.properties = Object.fromEntries(
        Object.keys(value)
          .sort()
          .map((name) => [name, isRecord(value[name]) ? normalizeSchema(value[name]) : value[name]]),
      );
    } else if (keyword === 'required' && Array.isArray(value)) {
      result.required = [...(value as string[])].sort();
    } else if ((keyword === 'items' || keyword === 'additionalProperties') && isRecord(value)) {
      result[keyword] = normalizeSchema(value);
    } else if ((keyword === 'anyOf' || keyword === 'oneOf' || keyword === 'allOf') && Array.isArray(value)) {
      result[keyword] = (value as unknown[]).map((variant) => (isRecord(variant) ? normalizeSchema(variant) : variant));
    } else if (keyword === '$defs' && isRecord(value)) {
      result.$defs = Object.fromEntries(
        Object.entries(value).map(([name, definition]) => [
          name,
          isRecord(definition) ? normalizeSchema(definition) : definition,
        ]),
      );
    } else {
      result[keyword] = value;
    }
  }
  return orderKeywords(result);
}

/** Orders keywords (recursively) by KEYWORD_ORDER, then alphabetically; property order is left as it is. */
function orderKeywords(node: JsonSchema): JsonSchema {
  const rank = (keyword: string): number => {
    const index = KEYWORD_ORDER.indexOf(keyword);
    return index === -1 ? KEYWORD_ORDER.length : index;
  };
  const keywords = Object.keys(node).sort(
    (left, right) => rank(left) - rank(right) || (left < right ? -1 : left > right ? 1 : 0),
  );
  const result: JsonSchema = {};
  for (const keyword of keywords) {
    const value = node[keyword];
    if ((keyword === 'properties' || keyword === '$defs') && isRecord(value)) {
      result[keyword] = Object.fromEntries(
        Object.entries(value).map(([name, child]) => [name, isRecord(child) ? orderKeywords(child) : child]),
      );
    } else if ((keyword === 'items' || keyword === 'additionalProperties') && isRecord(value)) {
      result[keyword] = orderKeywords(value);
    } else if ((keyword === 'anyOf' || keyword === 'oneOf' || keyword === 'allOf') && Array.isArray(value)) {
      result[keyword] = (value as unknown[]).map((variant) => (isRecord(variant) ? orderKeywords(variant) : variant));
    } else {
      result[keyword] = value;
    }
  }
  return result;
}

function withoutSchemaKeyword(schema: JsonSchema): JsonSchema {
  const { $schema: _schema, ...rest } = schema;
  return rest;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
