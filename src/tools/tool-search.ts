// Workflow-safe: the ToolSearch contract and its pure search over deferred tools (docs/tools.md §16), or, when the run
// selects its tools, over every tool the step did not show (ranked by the same index as the selection).
// ToolSearch runs inside the workflow (it reads the registry and marks tools discovered), so it has no executor.
import { z } from 'zod';
import { splitWords } from './search-terms.js';
import { toolIndexOf } from './tool-index.js';
import { defineTool, shorten } from './define-tool.js';
import type { ToolContract } from './define-tool.js';
import type { SchemaContext, ToolRegistry } from './define-tool.js';
import { toInputJsonSchema } from './schema-export.js';
import type { JsonSchema } from '../protocol/json-schema.js';

/** The wire name of ToolSearch. */
export const TOOL_SEARCH_NAME = 'ToolSearch';

/** §16: at most this many tools per search. */
export const MAX_TOOL_SEARCH_RESULTS = 10;

const DEFAULT_RESULTS = 5;

/** Prefix of a query that names tools directly instead of searching. */
const SELECT_PREFIX = 'select:';

const input = z
  .object({
    query: z
      .string()
      .min(1)
      .max(500)
      .describe('Keywords describing the capability you need, or "select:NameA,NameB" to load tools by exact name.'),
    max_results: z
      .number()
      .int()
      .min(1)
      .max(MAX_TOOL_SEARCH_RESULTS)
      .default(DEFAULT_RESULTS)
      .describe('Maximum number of tools to return (1-10).'),
  })
  .strict();

/** Finds deferred tools and makes them callable from the next turn. */
export const toolSearch = defineTool({
  name: TOOL_SEARCH_NAME,
  description: [
    'Search the additional tools that are available but not loaded yet; returns their names, descriptions and parameter schemas.',
    'Tools found become callable from your next turn. Prefix a term with "+" to require it.',
  ].join(' '),
  inputSchema: input,
  category: 'read',
  confirmation: 'none',
  isConcurrencySafe: () => true,
  pathParams: [],
  runInWorkflow: (args, context) =>
    runToolSearch(context.registry, args, {
      mode: context.mode,
      ...(context.searchScope ? { searchScope: context.searchScope } : {}),
    }),
  listedOnlyWithDeferredTools: true,
  parameterAliases: [
    { from: 'q', to: 'query' },
    { from: 'search', to: 'query' },
    { from: 'keywords', to: 'query' },
    { from: 'limit', to: 'max_results' },
    { from: 'max', to: 'max_results' },
  ],
  // Never scheduled as an activity (runInWorkflow); the policy only satisfies the contract shape.
  activity: () => ({ startToCloseTimeoutMs: 10_000, maximumAttempts: 1 }),
  summarize: (args) => `ToolSearch ${shorten(JSON.stringify(args.query), 80)}`,
});

/** One deferred tool found by ToolSearch. */
export interface DeferredToolMatch {
  name: string;
  description: string;
  /** The tool's input JSON Schema (plain form, with defaults). */
  schema: JsonSchema;
}

/**
 * Which tools a search may return: the deferred tools the mode allows (default mode when absent), or exactly
 * `searchScope` — the tools a selecting run did not show — ranked by the tool index (BM25) instead.
 */
export type ToolSearchContext = Pick<SchemaContext, 'mode'> & { searchScope?: ReadonlySet<string> };

/**
 * Deferred tools matching `query`, best first (ties by name), at most `max` (clamped to 1..10).
 * Only enabled tools allowed in the mode are candidates. `select:A,B` returns those tools by name, in that order.
 * Otherwise each term scores 10 for the whole name, 4 for a word of the name, 2 for part of the name and 1 for the
 * description; terms written `+term` must match somewhere. Tools scoring 0 are left out.
 */
export function searchDeferredTools(
  registry: ToolRegistry,
  query: string,
  max: number = DEFAULT_RESULTS,
  context: ToolSearchContext = { mode: 'default' },
): DeferredToolMatch[] {
  const limit = Math.min(
    MAX_TOOL_SEARCH_RESULTS,
    Math.max(1, Math.trunc(Number.isFinite(max) ? max : DEFAULT_RESULTS)),
  );
  const candidates = searchCandidates(registry, context);
  const trimmed = query.trim();

  if (trimmed.toLowerCase().startsWith(SELECT_PREFIX)) {
    const byLowerName = new Map(candidates.map((contract) => [contract.name.toLowerCase(), contract]));
    const selected: ToolContract[] = [];
    for (const requested of trimmed.slice(SELECT_PREFIX.length).split(',')) {
      const contract = byLowerName.get(requested.trim().toLowerCase());
      if (contract !== undefined && !selected.includes(contract)) selected.push(contract);
    }
    return selected.slice(0, limit).map(toMatch);
  }

  const terms = trimmed
    .split(/\s+/)
    .filter((term) => term !== '')
    .map((term) => ({ required: term.startsWith('+'), text: normalizeTerm(term) }))
    .filter((term) => term.text !== '');
  if (terms.length === 0) return [];
  if (context.searchScope) return rankedMatches(registry, terms, context.searchScope, limit);

  const scored: { contract: ToolContract; score: number }[] = [];
  for (const contract of candidates) {
    const name = contract.name.toLowerCase();
    const nameWords = splitWords(contract.name).map((word) => word.toLowerCase());
    const description = contract.description.toLowerCase();
    let score = 0;
    let missingRequired = false;
    for (const term of terms) {
      const termScore =
        (name === term.text ? 10 : nameWords.includes(term.text) ? 4 : name.includes(term.text) ? 2 : 0) +
        (description.includes(term.text) ? 1 : 0);
      if (term.required && termScore === 0) missingRequired = true;
      score += termScore;
    }
    if (!missingRequired && score > 0) scored.push({ contract, score });
  }
  scored.sort(
    (left, right) =>
      right.score - left.score ||
      (left.contract.name < right.contract.name ? -1 : left.contract.name > right.contract.name ? 1 : 0),
  );
  return scored.slice(0, limit).map((entry) => toMatch(entry.contract));
}

/** What a ToolSearch call reports: envelope `data` and `text`, and the names the workflow marks discovered. */
export interface ToolSearchOutcome {
  data: { query: string; tools: DeferredToolMatch[]; count: number; available?: string[] };
  text: string;
  discovered: string[];
}

/** Runs a validated ToolSearch call; when nothing matches, lists the deferred tool names so the model can select one. */
export function runToolSearch(
  registry: ToolRegistry,
  args: { query: string; max_results: number },
  context: ToolSearchContext = { mode: 'default' },
): ToolSearchOutcome {
  const tools = searchDeferredTools(registry, args.query, args.max_results, context);
  const names = tools.map((tool) => tool.name);
  if (tools.length === 0) {
    const all = searchCandidates(registry, context).map((contract) => contract.name);
    // Hundreds of unselected tools would make this answer longer than the schemas selection saved.
    const available = all.slice(0, MAX_LISTED_NAMES);
    const more = all.length > available.length ? ` and ${all.length - available.length} more` : '';
    const kind = context.searchScope ? 'tool' : 'deferred tool';
    return {
      data: { query: args.query, tools, count: 0, available },
      text:
        available.length === 0
          ? `No ${kind}s are available.`
          : `No ${kind} matches '${args.query}'. Available: ${available.join(', ')}${more}. Use "select:<name>" to load one.`,
      discovered: [],
    };
  }
  return {
    data: { query: args.query, tools, count: tools.length },
    text: `Found ${tools.length} tool(s): ${names.join(', ')}. They can be called from your next turn.`,
    discovered: names,
  };
}

/** At most this many names are listed when a search finds nothing. */
const MAX_LISTED_NAMES = 40;

/** The contracts a search may return (by name). */
function searchCandidates(registry: ToolRegistry, context: ToolSearchContext): ToolContract[] {
  const scope = context.searchScope;
  if (scope) return registry.list().filter((contract) => scope.has(contract.name));
  return registry
    .list()
    .filter(
      (contract) =>
        contract.shouldDefer === true &&
        registry.isEnabled(contract.name) &&
        (context.mode !== 'read_only' || contract.category === 'read'),
    );
}

/** The scoped search: BM25 over names, descriptions and parameters; `+` terms must match. */
function rankedMatches(
  registry: ToolRegistry,
  terms: { required: boolean; text: string }[],
  scope: ReadonlySet<string>,
  limit: number,
): DeferredToolMatch[] {
  const ranked = toolIndexOf(registry).rank(terms.map((term) => term.text).join(' '), {
    among: scope,
    required: terms.filter((term) => term.required).map((term) => term.text),
    limit,
  });
  return ranked.map((tool) => toMatch(registry.get(tool.name)!));
}

function toMatch(contract: ToolContract): DeferredToolMatch {
  return { name: contract.name, description: contract.description, schema: toInputJsonSchema(contract) };
}

function normalizeTerm(term: string): string {
  return term.replace(/^\+/, '').toLowerCase();
}
