// Sandbox-safe: a BM25 index (MiniSearch) over a task's tools — the words of their names, descriptions and parameters.
// Built once per registry and kept in workflow memory; indexing and searching read no clock and no randomness.
import MiniSearch from 'minisearch';
import type { ToolContract } from '../../tools/define-tool.js';
import type { ToolRegistry } from '../../tools/registry.js';
import { toInputJsonSchema } from '../../tools/schema-export.js';
import type { JsonSchema } from '../../tools/schema-export.js';
import { indexTerm, indexTerms, splitWords } from './terms.js';

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
 * How much a match counts by where it is. A tool's name says what it does most densely; its description says it in
 * prose; parameter names and their descriptions say what it acts on, but many tools share them (`id`, `limit`).
 */
const FIELD_BOOSTS = { name: 3, description: 1, parameters: 0.5 } as const;

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

/** Indexes `contracts` (names must be unique, as in a registry). */
export function createToolIndex(contracts: readonly ToolContract[]): ToolIndex {
  const search = new MiniSearch<ToolDocument>({
    fields: ['name', 'description', 'parameters'],
    tokenize: splitWords,
    processTerm: (term) => indexTerm(term),
    searchOptions: {
      boost: { ...FIELD_BOOSTS },
      prefix: (term) => term.length >= MIN_PREFIX_LENGTH,
      combineWith: 'OR',
    },
  });
  // addAll is synchronous; the async variants would wait on timers, which the workflow sandbox replaces.
  search.addAll(contracts.map(toolDocument));
  return {
    rank(query, options = {}) {
      const terms = indexTerms(query).slice(0, MAX_QUERY_TERMS);
      const required = (options.required ?? []).flatMap((word) => indexTerms(word));
      if (terms.length === 0 && required.length === 0) return [];
      const among = options.among;
      const anyTerm = { queries: terms.length > 0 ? terms : required, combineWith: 'OR' as const };
      const results = search.search(
        required.length > 0 ? { combineWith: 'AND', queries: [...required, anyTerm] } : anyTerm,
        // The terms are already processed: the index's own processing would stem them twice.
        { processTerm: (term) => term, ...(among ? { filter: (result) => among.has(String(result.id)) } : {}) },
      );
      const ranked = results
        .map((result) => ({ name: String(result.id), score: result.score }))
        .sort((left, right) => right.score - left.score || compareNames(left.name, right.name));
      return options.limit === undefined ? ranked : ranked.slice(0, options.limit);
    },
  };
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
    name: contract.name,
    description: contract.description,
    parameters: parameterText(toInputJsonSchema(contract)),
  };
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
