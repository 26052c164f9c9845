// Workflow-safe: a call's path argument as the rules see it — workspace-relative for the file write rules, and the key
// of its read-state entry (docs/tools.md §8), the only entry sent with the call.
import { normalizeRelativePath } from '../permissions/index.js';
import type { AgentState } from '../state.js';

/** The lexical workspace-relative path of a call's `path` argument, if it has one. */
export function lexicalPathOf(workspace: string, input: Record<string, unknown>): { lexicalPath?: string } {
  return typeof input.path === 'string'
    ? { lexicalPath: relativeToWorkspace(workspace, input.path) }
    : { lexicalPath: undefined };
}

/**
 * The read-state entry of the file a call names, and nothing else: activity inputs stay the same size however many
 * files the task has read. The executor keys entries by the symlink-resolved path, which the workflow learns from
 * each update; a path never seen resolves to itself (a missing entry only means "read it first").
 */
export function readStateFor(state: AgentState, lexicalPath: string | undefined): AgentState['readState'] {
  if (lexicalPath === undefined) return {};
  const key = state.readStateAliases[lexicalPath] ?? lexicalPath;
  const entry = state.readState[key];
  return entry ? { [key]: entry } : {};
}

/** The workspace-relative form of a path argument, for the file write rules (the executor enforces the real boundary). */
export function relativeToWorkspace(workspace: string, path: string): string {
  const root = workspace.replace(/\/+$/, '');
  const inside = path === root ? '.' : path.startsWith(`${root}/`) ? path.slice(root.length + 1) : path;
  return normalizeRelativePath(inside);
}
