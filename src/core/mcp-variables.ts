// Workflow-safe and dependency-free: the `${VAR}` and `${VAR:-default}` references of MCP server settings, and the
// variable naming the worker's servers file. Kept apart from the settings' validation (zod) so that the CLI's fast
// commands, which only need to know what a worker reads, load no validator.

/** The variable naming the worker's own MCP servers file (the `.mcp.json` shape). */
export const MCP_CONFIG_VARIABLE = 'DURABLE_AGENT_MCP_CONFIG';

/**
 * `${workspaceFolder}`: the run's workspace (its real path), filled in by the worker, never read from its environment.
 * A stdio server starts outside the workspace; this is how its settings name the workspace when it needs it.
 */
export const WORKSPACE_VARIABLE = 'workspaceFolder';

/** A `${VAR}` or `${VAR:-default}` reference; group 1 is the name, group 2 the default. */
export const VARIABLE_REFERENCE = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

/** The environment variable names `texts` refer to (not `${workspaceFolder}`), each once, in order of appearance. */
export function variablesIn(texts: readonly string[]): string[] {
  const names = new Set<string>();
  for (const text of texts)
    for (const match of text.matchAll(VARIABLE_REFERENCE)) if (match[1] !== WORKSPACE_VARIABLE) names.add(match[1]!);
  return [...names];
}
