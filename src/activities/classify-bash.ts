// Node: Bash command classification (docs/tools.md §5.2), called by the workflow as a short regular activity (not a
// local one) on the run's tool task queue, the workspace host's, or on the workflow's own queue when the run has none.
// It is a pure decision, but it needs a real shell parser (tree-sitter-bash, WebAssembly) and the file system (path
// arguments and redirect targets are resolved inside the workspace, symlinks included), neither of which the workflow
// isolate has. `~` and $HOME are the commands' own HOME, outside the workspace under the worker's data directory: their
// scratch space, where writes neither ask nor count as leaving the workspace. Its result is recorded in history, so a
// replay sees the same decision and never re-runs it (docs/architecture.md#decisions-recorded-as-activities).
import path from 'node:path';
import { classificationOf } from '../core/permissions/aggregate.js';
import type { BashClassification } from '../protocol/bash-classification.js';
import { initialScope } from './bash-classifier/scope.js';
import { finishLine } from './bash-classifier/segment-draft.js';
import { classifyScript, DEFAULT_BASH_WRITE_AUTO_ALLOW } from './bash-classifier/walker.js';
import { commandHomeDirectory, defaultWorkerDataDir, workspaceDataDirectory } from './worker-data.js';
import { realWorkspaceRoot, resolveInWorkspace } from './workspace.js';
import type { ClassifyBashInput } from '../protocol/bash-classification.js';

/**
 * Classifies a Bash command (§5.2): whole-command forbidden patterns, then per segment the level table, wrappers,
 * `sh -c` recursion, command substitutions, redirections and path arguments; then aggregation and outcome precedence
 * (forbidden DENY > path DENY > ASK > ALLOW). Task approvals are not applied here: `decidePermission` does that.
 */
export async function classifyBash(input: ClassifyBashInput): Promise<BashClassification> {
  const root = await realWorkspaceRoot(input.workspace);
  const cwd = await resolveInWorkspace(root, input.cwd);
  if (!cwd.ok) {
    const reason =
      cwd.code === 'ACCESS_DENIED' ? cwd.message : `Working directory '${input.cwd}' is not valid: ${cwd.message}`;
    const segment = {
      text: input.command,
      level: 'unclassified' as const,
      rule: 'path_outside_workspace',
      reason,
      action: 'deny' as const,
    };
    return {
      level: 'unclassified',
      rule: segment.rule,
      reason,
      outcome: 'deny',
      denyCode: 'ACCESS_DENIED',
      segments: [{ ...segment, deniedPath: input.cwd }],
      deniedPath: input.cwd,
    };
  }
  const home = path.resolve(
    input.home ?? commandHomeDirectory(workspaceDataDirectory(input.dataDir ?? defaultWorkerDataDir(), root)),
  );
  const segments = await classifyScript(
    input.command,
    initialScope(cwd.real),
    {
      root,
      home,
      policy: {
        ...(input.writeAutoAllow ? { writeAutoAllow: input.writeAutoAllow } : {}),
        ...(input.writeProtected ? { writeProtected: input.writeProtected } : {}),
      },
      bashWriteAutoAllow: new Set(input.bashWriteAutoAllow ?? DEFAULT_BASH_WRITE_AUTO_ALLOW),
    },
    0,
  );
  const line = finishLine(segments);
  const classification = classificationOf(line.segments);
  if (classification.level !== 'network_write' || line.networkHosts === undefined) return classification;
  return { ...classification, networkHosts: line.networkHosts };
}
