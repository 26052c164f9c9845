import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool } from '../../src/tools/define-tool.js';
import type { ToolCategory, ToolContract } from '../../src/tools/define-tool.js';
import { builtinTools } from '../../src/tools/index.js';
import { createToolRegistry } from '../../src/tools/registry.js';
import { toInputJsonSchema } from '../../src/tools/schema-export.js';
import { runToolSearch, searchDeferredTools, toolSearch } from '../../src/tools/tool-search.js';

function deferredTool(
  name: string,
  description: string,
  category: ToolCategory = 'command',
  shouldDefer = true,
): ToolContract {
  return defineTool({
    name,
    description,
    inputSchema: z
      .object({ target: z.string().describe('What to act on.'), verbose: z.boolean().default(false) })
      .strict(),
    category,
    confirmation: category === 'read' ? 'none' : 'declared',
    isConcurrencySafe: () => false,
    pathParams: [],
    shouldDefer,
    activity: () => ({ startToCloseTimeoutMs: 1000, maximumAttempts: 1 }),
    summarize: () => name,
  }) as unknown as ToolContract;
}

function registryWithDeferred() {
  return createToolRegistry([
    ...builtinTools,
    toolSearch as unknown as ToolContract,
    deferredTool('WebFetch', 'Fetch a URL over HTTP and return the page as markdown.'),
    deferredTool('WebSearch', 'Search the web and return result titles and links.', 'read'),
    deferredTool('SqlQuery', 'Run a read-only SQL query against the project database.', 'read'),
    deferredTool('NotebookEdit', 'Edit a cell of a Jupyter notebook.', 'write'),
  ]);
}

const names = (matches: { name: string }[]): string[] => matches.map((match) => match.name);

describe('ToolSearch contract', () => {
  it('is a concurrency-safe read tool with no path parameters, handled in the workflow', () => {
    expect(toolSearch.name).toBe('ToolSearch');
    expect(toolSearch.category).toBe('read');
    expect(toolSearch.isConcurrencySafe({ query: 'x', max_results: 5 })).toBe(true);
    expect(toolSearch.pathParams).toEqual([]);
    expect(Object.hasOwn(toolSearch, 'runInWorkflow')).toBe(true);
    expect(toolSearch.shouldDefer).toBeUndefined();
  });

  it('accepts max_results up to 10 and defaults it to 5', () => {
    expect(toolSearch.inputSchema.parse({ query: 'web' })).toEqual({ query: 'web', max_results: 5 });
    expect(toolSearch.inputSchema.safeParse({ query: 'web', max_results: 10 }).success).toBe(true);
    expect(toolSearch.inputSchema.safeParse({ query: 'web', max_results: 11 }).success).toBe(false);
    expect(toolSearch.inputSchema.safeParse({ query: 'web', max_results: 0 }).success).toBe(false);
    expect(toolSearch.inputSchema.safeParse({ query: '' }).success).toBe(false);
    expect(toolSearch.inputSchema.safeParse({ query: 'web', extra: true }).success).toBe(false);
  });
});

describe('searchDeferredTools', () => {
  it('returns only deferred tools, with name, description and schema', () => {
    const registry = registryWithDeferred();
    const matches = searchDeferredTools(registry, 'web', 10);
    // WebSearch also mentions "web" in its description, so it ranks first.
    expect(names(matches)).toEqual(['WebSearch', 'WebFetch']);
    const webFetch = registry.get('WebFetch')!;
    expect(matches[1]).toEqual({
      name: 'WebFetch',
      description: webFetch.description,
      schema: toInputJsonSchema(webFetch),
    });
    // "search" is in Grep's aliases and ToolSearch's own name, but neither is deferred.
    expect(names(searchDeferredTools(registry, 'search', 10))).toEqual(['WebSearch']);
  });

  it('ranks whole-name and name-word matches above description matches', () => {
    const registry = registryWithDeferred();
    // The whole name, case-insensitively.
    expect(names(searchDeferredTools(registry, 'sqlquery', 10))).toEqual(['SqlQuery']);
    // "return" appears in two descriptions only: equal scores, so by name.
    expect(names(searchDeferredTools(registry, 'return', 10))).toEqual(['WebFetch', 'WebSearch']);
    // "markdown" (description of WebFetch) plus "search" (a word of WebSearch's name): the name word wins.
    expect(names(searchDeferredTools(registry, 'markdown search', 10))).toEqual(['WebSearch', 'WebFetch']);
  });

  it('requires "+" terms', () => {
    const registry = registryWithDeferred();
    expect(names(searchDeferredTools(registry, '+web links', 10))).toEqual(['WebSearch', 'WebFetch']);
    expect(names(searchDeferredTools(registry, '+links web', 10))).toEqual(['WebSearch']);
    expect(names(searchDeferredTools(registry, '+nothing web', 10))).toEqual([]);
  });

  it('selects tools by exact name with "select:", in the given order, case-insensitively', () => {
    const registry = registryWithDeferred();
    expect(names(searchDeferredTools(registry, 'select:SqlQuery, webfetch,Unknown,SqlQuery', 10))).toEqual([
      'SqlQuery',
      'WebFetch',
    ]);
    // Non-deferred tools cannot be selected.
    expect(names(searchDeferredTools(registry, 'select:Grep', 10))).toEqual([]);
  });

  it('caps the results at max, clamped to 1..10', () => {
    const many = createToolRegistry(
      Array.from({ length: 14 }, (_, index) =>
        deferredTool(`Widget${String(index).padStart(2, '0')}`, 'A widget tool.'),
      ),
    );
    expect(searchDeferredTools(many, 'widget', 3)).toHaveLength(3);
    expect(searchDeferredTools(many, 'widget', 50)).toHaveLength(10);
    expect(searchDeferredTools(many, 'widget', 0)).toHaveLength(1);
    expect(searchDeferredTools(many, 'widget', Number.NaN)).toHaveLength(5);
    expect(names(searchDeferredTools(many, 'widget', 2))).toEqual(['Widget00', 'Widget01']);
  });

  it('skips disabled tools, and tools the mode does not allow', () => {
    const registry = registryWithDeferred();
    registry.disable('WebSearch');
    expect(names(searchDeferredTools(registry, 'web', 10))).toEqual(['WebFetch']);
    registry.enable('WebSearch');
    expect(names(searchDeferredTools(registry, 'web', 10, { mode: 'read_only' }))).toEqual(['WebSearch']);
  });

  it('returns nothing for a blank query', () => {
    expect(searchDeferredTools(registryWithDeferred(), '  + ', 10)).toEqual([]);
  });
});

describe('runToolSearch', () => {
  it('reports the matches and the names to mark discovered; getSchemas lists them once discovered', () => {
    const registry = registryWithDeferred();
    const outcome = runToolSearch(registry, { query: 'web', max_results: 5 });
    expect(outcome.discovered).toEqual(['WebSearch', 'WebFetch']);
    expect(outcome.data.count).toBe(2);
    expect(outcome.data).not.toHaveProperty('available');
    expect(outcome.text).toBe('Found 2 tool(s): WebSearch, WebFetch. They can be called from your next turn.');

    const before = registry.getSchemas({ mode: 'default' }).map((schema) => schema.function.name);
    expect(before).not.toContain('WebFetch');
    const after = registry
      .getSchemas({ mode: 'default', discovered: new Set(outcome.discovered) })
      .map((schema) => schema.function.name);
    expect(after).toEqual(expect.arrayContaining(['WebFetch', 'WebSearch']));
    expect(after).not.toContain('SqlQuery');
  });

  it('lists the available deferred tools when nothing matches', () => {
    const outcome = runToolSearch(registryWithDeferred(), { query: 'kubernetes', max_results: 5 });
    expect(outcome.discovered).toEqual([]);
    expect(outcome.data.available).toEqual(['NotebookEdit', 'SqlQuery', 'WebFetch', 'WebSearch']);
    expect(outcome.text).toContain(
      "No deferred tool matches 'kubernetes'. Available: NotebookEdit, SqlQuery, WebFetch, WebSearch.",
    );
  });

  it('says so when there are no deferred tools at all', () => {
    const outcome = runToolSearch(createToolRegistry(builtinTools), { query: 'web', max_results: 5 });
    expect(outcome.text).toBe('No deferred tools are available.');
    expect(outcome.data.available).toEqual([]);
  });
});
