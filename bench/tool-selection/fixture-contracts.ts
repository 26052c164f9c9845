// The fixture's tools as registry contracts: each JSON Schema rebuilt in zod (the contracts' one schema source), so
// the registry exports, indexes and sends them exactly as it would an MCP server's tools.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { defineTool } from '../../src/tools/define-tool.js';
import type { ToolContract } from '../../src/tools/define-tool.js';
import type { FixtureTool } from './generate-tools.js';

/** A user's request and the tools it needs. */
export interface FixtureTask {
  task: string;
  expected: string[];
}

const directory = path.dirname(fileURLToPath(import.meta.url));

/** The 200 generated tools (tools.json). */
export async function loadFixtureTools(): Promise<FixtureTool[]> {
  return JSON.parse(await readFile(path.join(directory, 'tools.json'), 'utf8')) as FixtureTool[];
}

/** The 50 tasks (tasks.json). */
export async function loadFixtureTasks(): Promise<FixtureTask[]> {
  return JSON.parse(await readFile(path.join(directory, 'tasks.json'), 'utf8')) as FixtureTask[];
}

/** One fixture tool as a contract of MCP origin. */
export function fixtureContract(tool: FixtureTool): ToolContract {
  return defineTool({
    name: tool.name,
    description: tool.description,
    inputSchema: zodOf(tool.inputSchema) as z.ZodType<Record<string, unknown>>,
    category: 'command',
    confirmation: 'declared',
    isConcurrencySafe: () => false,
    pathParams: [],
    origin: 'mcp',
    activity: () => ({ startToCloseTimeoutMs: 60_000, maximumAttempts: 1 }),
    summarize: () => tool.name,
  });
}

type Schema = Record<string, unknown>;

/** The zod type of the JSON Schema subset the generator writes. */
function zodOf(schema: Schema): z.ZodType {
  const described = (type: z.ZodType) =>
    typeof schema.description === 'string' ? type.describe(schema.description) : type;
  switch (schema.type) {
    case 'string':
      return described(Array.isArray(schema.enum) ? z.enum(schema.enum as [string, ...string[]]) : z.string());
    case 'integer': {
      let type = z.number().int();
      if (typeof schema.minimum === 'number') type = type.min(schema.minimum);
      if (typeof schema.maximum === 'number') type = type.max(schema.maximum);
      return described(type);
    }
    case 'number':
      return described(z.number());
    case 'boolean':
      return described(z.boolean());
    case 'array':
      return described(z.array(zodOf(schema.items as Schema)));
    case 'object': {
      const properties = (schema.properties ?? {}) as Record<string, Schema>;
      const required = new Set((schema.required ?? []) as string[]);
      const shape = Object.fromEntries(
        Object.entries(properties).map(([key, property]) => {
          const type = zodOf(property);
          return [key, required.has(key) ? type : type.optional()];
        }),
      );
      return described(z.object(shape).strict());
    }
    default:
      throw new Error(`unsupported schema type ${JSON.stringify(schema.type)}`);
  }
}
