import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool } from '../../src/tools/define-tool.js';
import type { ToolContract } from '../../src/tools/define-tool.js';
import { createFunctionTool } from '../../src/tools/function-tool.js';
import { builtinTools, toolSearch } from '../../src/tools/index.js';
import { toToolSchema, toInputJsonSchema, toStrictJsonSchema } from '../../src/tools/schema-export.js';
import type { JsonSchema } from '../../src/protocol/json-schema.js';
import { toAnthropicTool } from '../../src/providers/anthropic/anthropic-request.js';
import { toResponsesTool as responsesToolOf } from '../../src/providers/openai-responses/adapter.js';

/** The contract in the Responses API's shape, as its adapter renders it. */
const toResponsesTool = (contract: ToolContract) => responsesToolOf(toToolSchema(contract));

const FUNCTION_SCHEMA_TEXT =
  '{"type":"object","properties":{"input":{"type":"string","description":"raw input string"}},"required":["input"],"additionalProperties":false}';

const allTools: ToolContract[] = [...builtinTools, toolSearch as unknown as ToolContract];

function contractWith(schema: z.ZodType, name = 'Custom'): ToolContract {
  return defineTool({
    name,
    description: 'A test tool.',
    inputSchema: schema as ToolContract['inputSchema'],
    category: 'read',
    confirmation: 'none',
    isConcurrencySafe: () => true,
    pathParams: [],
    activity: () => ({ startToCloseTimeoutMs: 1000, maximumAttempts: 1 }),
    summarize: () => name,
  });
}

/** Every object node of a schema, with its path. */
function objectNodes(node: unknown, path = '$'): { path: string; node: JsonSchema }[] {
  if (typeof node !== 'object' || node === null) return [];
  if (Array.isArray(node)) return node.flatMap((item, index) => objectNodes(item, `${path}[${index}]`));
  const record = node as JsonSchema;
  const own =
    record.type === 'object' || (Array.isArray(record.type) && record.type.includes('object'))
      ? [{ path, node: record }]
      : [];
  return [...own, ...Object.entries(record).flatMap(([key, value]) => objectNodes(value, `${path}.${key}`))];
}

/** Every keyword used anywhere in a schema (property names excluded). */
function keywords(node: unknown): Set<string> {
  const found = new Set<string>();
  const visit = (value: unknown, isPropertyMap: boolean): void => {
    if (Array.isArray(value)) return value.forEach((item) => visit(item, false));
    if (typeof value !== 'object' || value === null) return;
    for (const [key, inner] of Object.entries(value)) {
      if (!isPropertyMap) found.add(key);
      visit(inner, !isPropertyMap && key === 'properties');
    }
  };
  visit(node, false);
  return found;
}

/** OpenAI strict-mode rules every exported schema must satisfy. */
function expectStrictCompatible(schema: JsonSchema): void {
  expect(schema.type).toBe('object');
  for (const { path, node } of objectNodes(schema)) {
    expect(node.additionalProperties, path).toBe(false);
    expect(node.required, path).toEqual(Object.keys(node.properties as JsonSchema));
  }
  for (const forbidden of ['default', 'minLength', 'maxLength', '$schema', 'oneOf', 'allOf', 'not']) {
    expect(keywords(schema).has(forbidden), forbidden).toBe(false);
  }
}

/** A minimal valid value for a required field of the plain schema. */
function sampleValue(schema: JsonSchema): unknown {
  if (Array.isArray(schema.enum)) return schema.enum[0];
  switch (schema.type) {
    case 'string':
      return 'x';
    case 'integer':
    case 'number':
      return typeof schema.minimum === 'number' ? schema.minimum : 1;
    case 'boolean':
      return true;
    default:
      throw new Error(`no sample for ${JSON.stringify(schema)}`);
  }
}

describe('schema snapshots', () => {
  for (const contract of allTools) {
    it(`${contract.name} in all three formats`, async () => {
      await expect(`${JSON.stringify(toToolSchema(contract), null, 2)}\n`).toMatchFileSnapshot(
        `./__snapshots__/schemas/${contract.name}.chat-completions.json`,
      );
      await expect(`${JSON.stringify(toResponsesTool(contract), null, 2)}\n`).toMatchFileSnapshot(
        `./__snapshots__/schemas/${contract.name}.responses.json`,
      );
      await expect(`${JSON.stringify(toAnthropicTool(contract), null, 2)}\n`).toMatchFileSnapshot(
        `./__snapshots__/schemas/${contract.name}.anthropic.json`,
      );
    });
  }

  it('function tool in all three formats', async () => {
    const contract = createFunctionTool({
      name: 'lookup_customer',
      description: 'Look up a customer by id or email.',
      risk: 'read_only',
    });
    await expect(`${JSON.stringify(toToolSchema(contract as unknown as ToolContract), null, 2)}\n`).toMatchFileSnapshot(
      './__snapshots__/schemas/function-tool.chat-completions.json',
    );
    await expect(
      `${JSON.stringify(toResponsesTool(contract as unknown as ToolContract), null, 2)}\n`,
    ).toMatchFileSnapshot('./__snapshots__/schemas/function-tool.responses.json');
    await expect(
      `${JSON.stringify(toAnthropicTool(contract as unknown as ToolContract), null, 2)}\n`,
    ).toMatchFileSnapshot('./__snapshots__/schemas/function-tool.anthropic.json');
  });
});

describe('function tool schema', () => {
  const contract = createFunctionTool({ name: 'fn', description: 'A function.' }) as unknown as ToolContract;

  it('is byte for byte the docs/tools.md §12 schema in every format', () => {
    expect(JSON.stringify(toToolSchema(contract).function.parameters)).toBe(FUNCTION_SCHEMA_TEXT);
    expect(JSON.stringify(toResponsesTool(contract).parameters)).toBe(FUNCTION_SCHEMA_TEXT);
    expect(JSON.stringify(toAnthropicTool(contract).input_schema)).toBe(FUNCTION_SCHEMA_TEXT);
  });
});

describe('format shapes', () => {
  const readFile = builtinTools.find((contract) => contract.name === 'ReadFile')!;

  it('Chat Completions nests the function and sets strict', () => {
    const tool = toToolSchema(readFile);
    expect(Object.keys(tool)).toEqual(['type', 'function']);
    expect(Object.keys(tool.function)).toEqual(['name', 'description', 'parameters', 'strict']);
    expect(tool.function).toMatchObject({ name: 'ReadFile', description: readFile.description, strict: true });
  });

  it('Responses puts the function fields at the top level and shares the strict parameters', () => {
    const tool = toResponsesTool(readFile);
    expect(Object.keys(tool)).toEqual(['type', 'name', 'description', 'parameters', 'strict']);
    expect(tool.parameters).toEqual(toToolSchema(readFile).function.parameters);
  });

  it('Anthropic uses input_schema with the plain schema: defaults, bounds, optional fields not required', () => {
    const tool = toAnthropicTool(readFile);
    expect(Object.keys(tool)).toEqual(['name', 'description', 'input_schema']);
    expect(tool.input_schema).toEqual({
      type: 'object',
      properties: {
        limit: {
          type: 'integer',
          description: 'Maximum number of lines to return (1-2000).',
          minimum: 1,
          maximum: 2000,
          default: 2000,
        },
        offset: { type: 'integer', description: '1-based line number to start reading from.', minimum: 1, default: 1 },
        path: {
          type: 'string',
          description: 'File path, relative to the workspace root (or absolute inside it).',
          minLength: 1,
          maxLength: 4096,
        },
      },
      required: ['path'],
      additionalProperties: false,
    });
  });
});

describe('strict rewriting of the built-ins', () => {
  for (const contract of allTools) {
    it(`${contract.name} satisfies strict mode`, () => {
      expectStrictCompatible(toToolSchema(contract).function.parameters);
    });

    it(`${contract.name} round-trips: nulls for every optional field, dropped, then validated`, () => {
      const plain = toInputJsonSchema(contract);
      const strict = toToolSchema(contract).function.parameters;
      const plainRequired = new Set(plain.required as string[]);
      const properties = plain.properties as Record<string, JsonSchema>;
      // What a strict-mode model sends when it only fills in the required fields.
      const sent: Record<string, unknown> = Object.fromEntries(
        (strict.required as string[]).map((name) => [
          name,
          plainRequired.has(name) ? sampleValue(properties[name]!) : null,
        ]),
      );
      // §7 drops nulls on optional parameters.
      const fixed = Object.fromEntries(Object.entries(sent).filter(([, value]) => value !== null));
      const parsed = contract.inputSchema.safeParse(fixed);
      expect(parsed.success, JSON.stringify(parsed.error?.issues)).toBe(true);
      for (const [name, property] of Object.entries(properties)) {
        if ('default' in property) expect((parsed.data as Record<string, unknown>)[name]).toEqual(property.default);
      }
    });
  }

  it('makes optional fields nullable and required, with the default in the description', () => {
    const glob = builtinTools.find((contract) => contract.name === 'Glob')!;
    const properties = toToolSchema(glob).function.parameters.properties as Record<string, JsonSchema>;
    expect(properties.pattern).toEqual({
      type: 'string',
      description: 'Glob relative to path, e.g. "src/**/*.ts". * and ? never cross "/".',
    });
    expect(properties.limit).toEqual({
      type: ['integer', 'null'],
      description: 'Maximum number of paths to return. Default: 100.',
      minimum: 1,
      maximum: 1000,
    });
    expect(properties.path).toEqual({
      type: ['string', 'null'],
      description: 'Directory to search from, relative to the workspace root. Default: ".".',
    });
  });

  it('adds null to the enum of an optional enum field', () => {
    const grep = builtinTools.find((contract) => contract.name === 'Grep')!;
    const properties = toToolSchema(grep).function.parameters.properties as Record<string, JsonSchema>;
    expect(properties.output_mode?.type).toEqual(['string', 'null']);
    expect(properties.output_mode?.enum).toEqual(['content', 'files_with_matches', 'count', null]);
  });

  it('keeps the real items schema of EditFile.edits, strict inside too (§2)', () => {
    const editFile = builtinTools.find((contract) => contract.name === 'EditFile')!;
    const edits = (toToolSchema(editFile).function.parameters.properties as Record<string, JsonSchema>).edits!;
    expect(edits.description).toBe('Multi-edit form: applied all-or-nothing to the original content.');
    const [arrayBranch, nullBranch] = edits.anyOf as JsonSchema[];
    expect(nullBranch).toEqual({ type: 'null' });
    expect(arrayBranch).toMatchObject({ type: 'array', minItems: 1, maxItems: 50 });
    const items = arrayBranch!.items as JsonSchema;
    expect(items.type).toBe('object');
    expect(items.required).toEqual(['new_string', 'old_string', 'replace_all']);
    expect(items.additionalProperties).toBe(false);
    expect((items.properties as Record<string, JsonSchema>).replace_all?.type).toEqual(['boolean', 'null']);
  });

  it("drops zod's safe-integer bound and $schema in every format", () => {
    const readFile = builtinTools.find((contract) => contract.name === 'ReadFile')!;
    for (const schema of [toInputJsonSchema(readFile), toToolSchema(readFile).function.parameters]) {
      expect(JSON.stringify(schema)).not.toContain(String(Number.MAX_SAFE_INTEGER));
      expect(schema).not.toHaveProperty('$schema');
    }
  });
});

describe('toStrictJsonSchema on other shapes', () => {
  it('handles nested optional objects, literals, nullable fields and already-nullable unions', () => {
    const contract = contractWith(
      z
        .object({
          mode: z.literal('fast').optional(),
          nested: z
            .object({ depth: z.number().min(0).optional().describe('How deep.') })
            .strict()
            .optional()
            .describe('Nested options.'),
          note: z.string().nullable().optional(),
          when: z.iso.datetime().optional(),
          url: z.url().optional(),
        })
        .strict(),
    );
    const properties = toToolSchema(contract).function.parameters.properties as Record<string, JsonSchema>;
    expect(properties.mode).toEqual({ type: ['string', 'null'], enum: ['fast', null] });
    expect(properties.nested).toEqual({
      description: 'Nested options.',
      anyOf: [
        {
          type: 'object',
          properties: { depth: { type: ['number', 'null'], description: 'How deep.', minimum: 0 } },
          required: ['depth'],
          additionalProperties: false,
        },
        { type: 'null' },
      ],
    });
    // Already nullable: no second null branch.
    expect((properties.note?.anyOf as JsonSchema[]).filter((variant) => variant.type === 'null')).toHaveLength(1);
    expect(properties.when?.format).toBe('date-time');
    // "uri" is not a format strict mode accepts.
    expect(properties.url).not.toHaveProperty('format');
    expectStrictCompatible(toToolSchema(contract).function.parameters);
  });

  it('sorts properties and orders keywords the same whatever the declaration order', () => {
    const first = contractWith(
      z.object({ b: z.string().describe('B.'), a: z.number().int().max(5) }).strict(),
      'First',
    );
    const second = contractWith(
      z.object({ a: z.number().int().max(5), b: z.string().describe('B.') }).strict(),
      'Second',
    );
    expect(JSON.stringify(toInputJsonSchema(first))).toBe(JSON.stringify(toInputJsonSchema(second)));
    expect(JSON.stringify(toToolSchema(first).function.parameters)).toBe(
      '{"type":"object","properties":{"a":{"type":"integer","maximum":5},"b":{"type":"string","description":"B."}},"required":["a","b"],"additionalProperties":false}',
    );
  });

  it('rejects what strict mode cannot express', () => {
    expect(() => toStrictJsonSchema({ type: 'string' })).toThrow(/object at the root/);
    expect(() =>
      toStrictJsonSchema({
        type: 'object',
        properties: { env: { type: 'object', additionalProperties: { type: 'string' } } },
      }),
    ).toThrow(/without declared properties/);
    expect(() => toStrictJsonSchema({ type: 'object', properties: {}, additionalProperties: true })).toThrow(
      /additional properties/,
    );
  });

  it('does not alter the schema it is given', () => {
    const schema: JsonSchema = { type: 'object', properties: { a: { type: 'string', default: 'x' } } };
    const copy = JSON.parse(JSON.stringify(schema)) as JsonSchema;
    toStrictJsonSchema(schema);
    expect(schema).toEqual(copy);
  });
});
