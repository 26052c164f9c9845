// Node: the catalog of a task's MCP tools, stored once in the content store. The workflow records its key; the model
// activity resolves tool schemas from it and the call activity finds each tool's server in it, so neither a model
// request nor a call carries schemas or server settings through history.
import { LRUCache } from 'lru-cache';
import type { ContentKey } from '../../protocol/content-key.js';
import type { McpServerConfig, McpServers } from '../../protocol/mcp.js';
import type { ContentStore } from '../../store/content-store.js';
import type { ToolContract } from '../../tools/define-tool.js';
import { createMcpTool } from '../../tools/mcp-tool.js';
import type { McpToolDescriptor } from '../../protocol/mcp.js';
import { canonicalJson } from '../../protocol/canonical-json.js';

/**
 * Where a catalog's server is configured: on the worker (its settings stay there: they may hold literal secrets) or by
 * the run (its settings, unexpanded, are in the run's input anyway).
 */
export type McpCatalogServer = { source: 'worker' } | { source: 'run'; config: McpServerConfig };

/** A task's MCP servers and their tools, as listed when it started. */
export interface McpCatalog {
  servers: Record<string, McpCatalogServer>;
  tools: McpToolDescriptor[];
}

/** Catalogs by key, read once per worker. */
export interface McpCatalogs {
  put(catalog: McpCatalog): Promise<ContentKey>;
  get(key: ContentKey): Promise<McpCatalog>;
  /** The catalog's tools as contracts, by registry name. */
  contracts(key: ContentKey): Promise<ReadonlyMap<string, ToolContract>>;
}

/** The catalogs of `store`, cached: every step of a task resolves the same one. */
export function createMcpCatalogs(store: ContentStore): McpCatalogs {
  const catalogs = new LRUCache<ContentKey, { catalog: McpCatalog; contracts: Map<string, ToolContract> }>({ max: 64 });
  const load = async (key: ContentKey) => {
    const cached = catalogs.get(key);
    if (cached) return cached;
    const catalog = JSON.parse(new TextDecoder().decode(await store.get(key))) as McpCatalog;
    const contracts = new Map(catalog.tools.map((descriptor) => [descriptor.name, createMcpTool(descriptor)]));
    const entry = { catalog, contracts };
    catalogs.set(key, entry);
    return entry;
  };
  return {
    put: (catalog) => store.put(canonicalJson(catalog)),
    get: async (key) => (await load(key)).catalog,
    contracts: async (key) => (await load(key)).contracts,
  };
}

/** The servers a task uses: the worker's, then the run's (a run's server replaces the worker's of the same name). */
export function taskServers(workerServers: McpServers, runServers: McpServers = {}): Record<string, McpCatalogServer> {
  const servers: Record<string, McpCatalogServer> = {};
  for (const name of Object.keys(workerServers)) servers[name] = { source: 'worker' };
  for (const [name, config] of Object.entries(runServers)) servers[name] = { source: 'run', config };
  return servers;
}
