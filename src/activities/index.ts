// Node: every side effect the workflow can ask for, assembled from the dependencies worker.ts passes in.
import { createCallModel } from './call-model.js';
import type { ToolExecutor } from './executors/types.js';
import { executeBash } from './executors/bash.js';
import { executeEditFile } from './executors/edit-file.js';
import { executeGlob } from './executors/glob.js';
import { executeGrep } from './executors/grep.js';
import { executeReadFile } from './executors/read-file.js';
import { executeWriteFile } from './executors/write-file.js';
import { runTool } from './run-tool.js';
import { spillOutput } from './spill.js';
import type { ToolActivityInput, ToolActivityResult } from './tool-request.js';
import type { ProviderResolver } from '../providers/resolve-provider.js';
import { builtinTools } from '../tools/index.js';
import { toChatCompletionsTool } from '../tools/schema-export.js';

/** What the activities need from the composition root. */
export interface ActivityDependencies {
  resolveProvider: ProviderResolver;
}

const contractsByName = new Map(builtinTools.map((contract) => [contract.name, contract]));

function toolActivity(name: string, executor: ToolExecutor): (request: ToolActivityInput) => Promise<ToolActivityResult> {
  return (request) => runTool(name, executor, request);
}

/** The activities registered on the worker; the activity type of each tool is the tool's name. */
export function createActivities(deps: ActivityDependencies) {
  return {
    callModel: createCallModel({
      resolveProvider: deps.resolveProvider,
      // The workflow sends tool names only; schemas are resolved here so history stays small (STYLE 10).
      resolveTools: (names) =>
        names.flatMap((name) => {
          const contract = contractsByName.get(name);
          return contract ? [toChatCompletionsTool(contract)] : [];
        }),
    }),
    spillOutput,
    ReadFile: toolActivity('ReadFile', executeReadFile),
    WriteFile: toolActivity('WriteFile', executeWriteFile),
    EditFile: toolActivity('EditFile', executeEditFile),
    Glob: toolActivity('Glob', executeGlob),
    Grep: toolActivity('Grep', executeGrep),
    Bash: toolActivity('Bash', executeBash),
  };
}

/** The activity interface the workflow proxies (type-only import there). */
export type Activities = ReturnType<typeof createActivities>;
