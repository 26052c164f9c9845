// Node: every side effect the workflow can ask for, assembled from the dependencies worker.ts passes in.
import { Context } from '@temporalio/activity';
import { createCallModel } from './call-model.js';
import { classifyBash } from './classify-bash.js';
import type { ModelRequest, ModelTurn, ToolSchema } from '../core/messages.js';
import { approximateTokens, schemaTokens } from '../core/pricing.js';
import type { ToolExecutor } from './executors/types.js';
import { executeBash } from './executors/bash.js';
import { executeEditFile } from './executors/edit-file.js';
import type { FunctionToolDefinition } from './executors/function-tool.js';
import { functionExecutor } from './executors/function-tool.js';
import { executeGlob } from './executors/glob.js';
import { executeGrep } from './executors/grep.js';
import { executeReadFile } from './executors/read-file.js';
import { executeWriteFile } from './executors/write-file.js';
import { runTool } from './run-tool.js';
import { spillOutput } from './spill.js';
import type { ToolActivityInput, ToolActivityResult } from './tool-request.js';
import type { ProviderResolver } from '../providers/resolve-provider.js';
import type { FunctionToolSpec } from '../tools/function-tool.js';
import { builtinTools, toolSearch } from '../tools/index.js';
import { createToolRegistry } from '../tools/registry.js';
import { toChatCompletionsTool } from '../tools/schema-export.js';

/** What the activities need from the composition root. */
export interface ActivityDependencies {
  resolveProvider: ProviderResolver;
  /** Function tools (C.12) this worker offers to every run it serves. */
  functions?: readonly FunctionToolDefinition[];
  /** Replaces built-in executors by tool name (a sandboxed deployment's own Bash, a failing tool in tests). */
  executors?: Readonly<Partial<Record<BuiltinToolName, ToolExecutor>>>;
}

type BuiltinToolName = 'ReadFile' | 'WriteFile' | 'EditFile' | 'Glob' | 'Grep' | 'Bash';

/** A tool activity: the activity type is the tool's name. */
export type ToolActivity = (request: ToolActivityInput) => Promise<ToolActivityResult>;

function toolActivity(name: string, executor: ToolExecutor): ToolActivity {
  return (request) => runTool(name, executor, request);
}

const builtinExecutors: Record<BuiltinToolName, ToolExecutor> = {
  ReadFile: executeReadFile,
  WriteFile: executeWriteFile,
  EditFile: executeEditFile,
  Glob: executeGlob,
  Grep: executeGrep,
  Bash: executeBash,
};

/** The activities registered on the worker. */
export function createActivities(deps: ActivityDependencies) {
  const functions = deps.functions ?? [];
  const executor = (name: BuiltinToolName): ToolExecutor => deps.executors?.[name] ?? builtinExecutors[name];
  // Same registry shape as the workflow's, so every name the workflow sends resolves to the same schema here.
  const registry = createToolRegistry([...builtinTools, toolSearch]);
  for (const definition of functions) registry.registerFunction(definition);
  const specs: FunctionToolSpec[] = functions.map(({ fn: _fn, ...spec }) => spec);
  const functionActivities: Record<string, ToolActivity> = Object.fromEntries(
    functions.map((definition) => [definition.name, toolActivity(definition.name, functionExecutor(definition))]),
  );
  // The workflow sends tool names only; schemas are resolved here so history stays small (STYLE 10).
  const resolveTools = (names: string[]): ToolSchema[] =>
    names.flatMap((name) => {
      const contract = registry.get(name);
      return contract ? [toChatCompletionsTool(contract)] : [];
    });
  const callModel = createCallModel({ resolveProvider: deps.resolveProvider, resolveTools });
  return {
    ...functionActivities,
    callModel: async (request: ModelRequest): Promise<ModelTurn> => withUsageAccounting(request, await callModel(request), resolveTools),
    /** The function tools of this worker, recorded once per task so the workflow can offer them deterministically. */
    listFunctionTools: async (): Promise<FunctionToolSpec[]> => specs,
    spillOutput,
    classifyBash,
    ReadFile: toolActivity('ReadFile', executor('ReadFile')),
    WriteFile: toolActivity('WriteFile', executor('WriteFile')),
    EditFile: toolActivity('EditFile', executor('EditFile')),
    Glob: toolActivity('Glob', executor('Glob')),
    Grep: toolActivity('Grep', executor('Grep')),
    Bash: toolActivity('Bash', executor('Bash')),
  };
}

/**
 * Completes the usage the ledger needs: the tool list's tokens, the attempt that succeeded, and an estimate when the
 * endpoint reported nothing (some OpenAI-compatible servers do not), so a budget can never be bypassed by silence.
 */
function withUsageAccounting(request: ModelRequest, turn: ModelTurn, resolveTools: (names: string[]) => ToolSchema[]): ModelTurn {
  const tools = schemaTokens(resolveTools(request.toolNames));
  const attempt = activityAttempt();
  if (turn.usage.totalTokens > 0) return { ...turn, usage: { ...turn.usage, schemaTokens: tools }, ...(attempt ? { attempt } : {}) };
  const promptTokens = approximateTokens(request.messages) + tools;
  const completionTokens = approximateTokens(turn.content ?? '') + approximateTokens(turn.toolCalls);
  return {
    ...turn,
    usage: { promptTokens, completionTokens, totalTokens: promptTokens + completionTokens, schemaTokens: tools, estimated: true },
    ...(attempt ? { attempt } : {}),
  };
}

function activityAttempt(): number | undefined {
  try {
    return Context.current().info.attempt;
  } catch {
    return undefined; // called outside an activity (tests)
  }
}

/** The activity interface the workflow proxies (type-only import there). */
export type Activities = ReturnType<typeof createActivities>;
