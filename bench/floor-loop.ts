// The in-process floor of the durable-run benchmarks: the same model calls and the same tool work as a durable run,
// made by calling the worker's own activity functions (createActivities) in a plain loop. No server, no history, no
// workflow tasks: what a durable run costs above this loop is the price of durability.
import type { Activities } from '../src/activities/index.js';
import type { ToolActivity } from '../src/protocol/activities.js';
import { createActivities } from '../src/activities/index.js';
import type { ToolActivityInput } from '../src/protocol/tool-activity.js';
import { abbreviateParams } from '../src/protocol/envelope.js';
import type { ModelSelection } from '../src/protocol/model.js';
import type { ReadStateStore } from '../src/protocol/read-state.js';
import { initialState } from '../src/core/state.js';
import { normalizeToolCallIds, planToolCalls, toAssistantToolCalls } from '../src/core/tool-calls.js';
import type { PlannedCall } from '../src/core/tool-calls.js';
import { systemPrompt } from '../src/core/system-prompt.js';
import { appendMessages, takeWrites, workflowMessage } from '../src/protocol/transcript-ref.js';
import type { MessageRef } from '../src/protocol/transcript-ref.js';
import { createProviderResolver } from '../src/providers/resolve-provider.js';
import type { ContentStore } from '../src/store/content-store.js';
import { builtinTools, toolSearch } from '../src/tools/index.js';
import { createToolRegistry } from '../src/tools/registry.js';

/** What a floor run did, to check it against the durable run of the same script. */
export interface FloorResult {
  steps: number;
  toolCalls: number;
  answer: string;
}

/** A floor run's input: what a durable run's AgentInput says about the same task. */
export interface FloorInput {
  taskId: string;
  task: string;
  workspace: string;
  selection: ModelSelection;
  maxSteps: number;
}

// Every call the benchmarks script is concurrency-safe, so a step is one batch; it runs at most four calls at a time,
// as the workflow's default does (docs/tools.md §3 MAX_TOOL_CONCURRENCY).
const MAX_TOOL_CONCURRENCY = 4;

/** A floor with its own activities (and so its own transcript cache), like one worker process. */
export function createFloor(store: ContentStore): (input: FloorInput) => Promise<FloorResult> {
  // The benchmark scripts run no commands, so the floor needs no command sandbox.
  const activities = createActivities({
    resolveProvider: createProviderResolver({ OPENAI_API_KEY: 'unused' }),
    store,
    commandSandbox: { kind: 'off' },
  });
  const registry = createToolRegistry([...builtinTools, toolSearch]);
  const toolNames = registry.getSchemas({ mode: 'default' }).map((schema) => schema.function.name);
  const lookup = {
    resolveName: (raw: string | undefined) => registry.resolveName(raw),
    get: (name: string) => registry.get(name),
    availableNames: () => toolNames,
    isUndiscovered: () => false,
  };

  return async (input) => {
    const state = initialState(input.taskId, systemPrompt({ workspace: input.workspace, mode: 'default' }), input.task);
    const readState: ReadStateStore = {};
    let toolCalls = 0;
    for (let step = 1; step <= input.maxSteps; step++) {
      const writes = takeWrites(state);
      const turn = await activities.callModel({
        transcript: state.transcript,
        writes: writes.content,
        toolNames,
        selection: input.selection,
        step,
      });
      writes.stored();
      if (turn.toolCalls.length === 0) {
        const answer = workflowMessage({ role: 'assistant', content: turn.content ?? '' }, state.pendingWrites);
        state.transcript = appendMessages(state.transcript, [{ ...answer, role: 'assistant' }], state.pendingWrites);
        await activities.storeContent(takeWrites(state).content);
        return { steps: step, toolCalls, answer: turn.content ?? '' };
      }
      const ids = normalizeToolCallIds(turn.toolCalls, step);
      const assistant = workflowMessage(
        { role: 'assistant', content: turn.content, tool_calls: toAssistantToolCalls(turn.toolCalls, ids) },
        state.pendingWrites,
      );
      const plans = planToolCalls(turn.toolCalls, ids, lookup);
      const results = await runPlans(plans, MAX_TOOL_CONCURRENCY, (plan) =>
        runCall(activities, plan, input, step, readState),
      );
      state.transcript = appendMessages(
        state.transcript,
        [{ ...assistant, role: 'assistant' }, ...results.map((message) => ({ ...message, role: 'tool' as const }))],
        state.pendingWrites,
      );
      toolCalls += plans.length;
    }
    throw new Error(`floor run reached ${input.maxSteps} steps without an answer`);
  };
}

/** One call through the tool's stored activity body, with the request the workflow would send. */
async function runCall(
  activities: Activities,
  plan: PlannedCall,
  input: FloorInput,
  step: number,
  readState: ReadStateStore,
): Promise<MessageRef> {
  if (plan.state !== 'ready') throw new Error(`floor: call ${plan.callId} was not planned (${plan.state})`);
  const activity = (activities as unknown as Record<string, ToolActivity>)[plan.tool.name];
  if (!activity) throw new Error(`floor: no activity for ${plan.tool.name}`);
  const path = typeof plan.input.path === 'string' ? plan.input.path : undefined;
  const entry = path === undefined ? undefined : readState[path];
  const request: ToolActivityInput = {
    taskId: input.taskId,
    turn: step,
    index: plan.index,
    callId: plan.callId,
    workspace: input.workspace,
    input: plan.input,
    paramsInput: abbreviateParams(plan.paramsInput),
    maximumAttempts: plan.tool.activity(plan.input).maximumAttempts,
    ...(plan.repairs.length ? { repairs: plan.repairs } : {}),
    ...(plan.ignoredParams.length ? { ignoredParams: plan.ignoredParams } : {}),
    ...(plan.tool.name === 'ReadFile' ? { readState: entry && path !== undefined ? { [path]: entry } : {} } : {}),
  };
  const result = await activity(request);
  // The floor's requests name no host, so a tool always runs here.
  if ('elsewhere' in result) throw new Error(`${plan.tool.name} answered elsewhere in the floor loop`);
  const update = result.readStateUpdate;
  if (update?.entry) readState[update.key] = update.entry;
  else if (update) delete readState[update.key];
  return result.message;
}

/** Runs the plans at most `limit` at a time and returns their results in request order. */
async function runPlans<T>(plans: PlannedCall[], limit: number, run: (plan: PlannedCall) => Promise<T>): Promise<T[]> {
  const results = new Array<T>(plans.length);
  let next = 0;
  const lanes = Array.from({ length: Math.min(limit, plans.length) }, async () => {
    while (next < plans.length) {
      const index = next++;
      results[index] = await run(plans[index]!);
    }
  });
  await Promise.all(lanes);
  return results;
}
