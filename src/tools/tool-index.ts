// Workflow-safe: a BM25 index (MiniSearch) over a task's tools — the words of their names, descriptions and parameters.
// Built once per registry and kept in workflow memory; indexing and searching read no clock and no randomness.
import MiniSearch from 'minisearch';
import type { ToolContract } from './define-tool.js';
import type { ToolRegistry } from './define-tool.js';
import { toInputJsonSchema } from './schema-export.js';
import type { JsonSchema } from '../protocol/json-schema.js';
import { indexTerm, indexTerms, splitWords } from './search-terms.js';

/** A tool that matched a query, with its BM25 score. */
export interface RankedTool {
  name: string;
  score: number;
}

/** What a ranking may return. */
export interface RankOptions {
  /** Only these tools; all indexed tools when absent. */
  among?: ReadonlySet<string>;
  /** Terms every result must contain somewhere (ToolSearch's `+term`). */
  required?: readonly string[];
  /** At most this many results (all matches when absent). */
  limit?: number;
}

/** The tools of a task, searchable by what they do. */
export interface ToolIndex {
  /** The tools matching `query`, best first, ties by name; tools matching no term are left out. */
  rank(query: string, options?: RankOptions): RankedTool[];
}

/**
 * How much a match counts by where it is. A tool's name (and its aliases) says what it does most densely; its
 * description says it in prose; parameter names and their descriptions say what it acts on, but many tools share them
 * (`id`, `limit`).
 */
const FIELD_BOOSTS = { name: 2, description: 1, parameters: 0.5 } as const;

/**
 * How much what a tool's family says counts next to what the tool says: a task phrased in the words of a service
 * (an MCP server's tools, the built-ins) finds all of the service's tools, not only those repeating its words.
 */
const FAMILY_WEIGHT = 1;

/** Query terms this long also match longer words they begin (`config` finds `configuration`). */
const MIN_PREFIX_LENGTH = 4;

/** A query's words beyond this many are not searched: a long task still ranks on its first few hundred words. */
const MAX_QUERY_TERMS = 400;

interface ToolDocument {
  id: string;
  name: string;
  description: string;
  parameters: string;
}

interface FamilyDocument {
  id: string;
  text: string;
}

/** Indexes `contracts` (names must be unique, as in a registry). */
export function createToolIndex(contracts: readonly ToolContract[]): ToolIndex {
  const tools = searchIndex<ToolDocument>(['name', 'description', 'parameters'], FIELD_BOOSTS);
  // addAll is synchronous; the async variants would wait on timers, which the workflow isolate replaces.
  tools.addAll(contracts.map(toolDocument));
  const members = new Map<string, string[]>();
  const texts = new Map<string, string[]>();
  for (const contract of contracts) {
    const family = familyOf(contract);
    if (family === undefined) continue;
    members.set(family, [...(members.get(family) ?? []), contract.name]);
    texts.set(family, [...(texts.get(family) ?? []), contract.name, contract.description]);
  }
  const families = searchIndex<FamilyDocument>(['text'], { text: 1 });
  families.addAll([...texts].map(([id, text]) => ({ id, text: text.join('\n') })));

  return {
    rank(query, options = {}) {
      const terms = indexTerms(query).slice(0, MAX_QUERY_TERMS);
      const required = (options.required ?? []).flatMap((word) => indexTerms(word));
      const among = options.among;
      const inScope = (name: string) => among === undefined || among.has(name);
      // The terms are already processed: the indexes' own processing would stem them twice.
      const processed = { processTerm: (term: string) => term };
      const scores = new Map<string, number>();
      if (terms.length > 0) {
        const own = tools.search({ combineWith: 'OR', queries: terms }, processed);
        for (const result of own) if (inScope(String(result.id))) scores.set(String(result.id), result.score);
        for (const family of families.search({ combineWith: 'OR', queries: terms }, processed)) {
          for (const name of members.get(String(family.id)) ?? []) {
            if (inScope(name)) scores.set(name, (scores.get(name) ?? 0) + FAMILY_WEIGHT * family.score);
          }
        }
      }
      if (required.length > 0) {
        // `+term`s must be in the tool's own text; alone, they rank what contains them all.
        const matching = tools.search({ combineWith: 'AND', queries: required }, processed);
        const allowed = new Map(matching.map((result) => [String(result.id), result.score]));
        for (const name of [...scores.keys()]) if (!allowed.has(name)) scores.delete(name);
        if (terms.length === 0) for (const [name, score] of allowed) if (inScope(name)) scores.set(name, score);
      }
      const ranked = [...scores]
        .map(([name, score]) => ({ name, score }))
        .sort((left, right) => right.score - left.score || compareNames(left.name, right.name));
      return options.limit === undefined ? ranked : ranked.slice(0, options.limit);
    },
  };
}

/** A MiniSearch index with the selection's words (terms.ts) and BM25 defaults. */
function searchIndex<T extends { id: string }>(fields: (keyof T & string)[], boost: Record<string, number>) {
  return new MiniSearch<T>({
    fields,
    tokenize: splitWords,
    processTerm: (term) => indexTerm(term),
    searchOptions: { boost: { ...boost }, prefix: (term) => term.length >= MIN_PREFIX_LENGTH, combineWith: 'OR' },
  });
}

const cached = new WeakMap<ToolRegistry, { names: string; index: ToolIndex }>();

/**
 * The index of a registry's tools, built the first time it is needed and kept while the registry holds the same tools:
 * a task's registry lives as long as its run, so every step of the run ranks with one index.
 */
export function toolIndexOf(registry: ToolRegistry): ToolIndex {
  const contracts = registry.list();
  const names = contracts.map((contract) => contract.name).join('\n');
  const entry = cached.get(registry);
  if (entry?.names === names) return entry.index;
  const index = createToolIndex(contracts);
  cached.set(registry, { names, index });
  return index;
}

function toolDocument(contract: ToolContract): ToolDocument {
  return {
    id: contract.name,
    name: [contract.name, ...(contract.aliases ?? [])].join(' '),
    description: contract.description,
    parameters: parameterText(toInputJsonSchema(contract)),
  };
}

/**
 * The family a tool ships in: the namespace its name starts with (`mcp__github__create_issue` → `mcp__github`), or the
 * built-ins as one set; a tool with neither (a worker's function tool) stands alone.
 */
function familyOf(contract: ToolContract): string | undefined {
  const separator = contract.name.lastIndexOf('__');
  if (separator > 0) return contract.name.slice(0, separator);
  return contract.origin === undefined || contract.origin === 'builtin' ? 'builtin' : undefined;
}

/** The names, descriptions and enumerated values of a schema's properties, nested ones included. */
function parameterText(schema: JsonSchema, depth = 0): string {
  if (depth > 4) return '';
  const parts: string[] = [];
  const properties = isRecord(schema.properties) ? schema.properties : {};
  for (const [name, property] of Object.entries(properties)) {
    parts.push(name);
    if (!isRecord(property)) continue;
    if (typeof property.description === 'string') parts.push(property.description);
    if (Array.isArray(property.enum)) parts.push(...property.enum.filter((value) => typeof value === 'string'));
    parts.push(parameterText(property, depth + 1));
    if (isRecord(property.items)) parts.push(parameterText(property.items, depth + 1));
  }
  return parts.filter((part) => part !== '').join(' ');
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function compareNames(left: string, right: string): number {
  return left < right ? -1 : left > right ? 1 : 0;
}
