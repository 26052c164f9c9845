// The selection as the workflow runs it (core/tool-selection/step-tools): a task's registry with many tools, the
// state the steps share, ToolSearch over the tools a step left out, and profiles.
import { describe, expect, it } from 'vitest';
import type { AgentInput } from '../../../src/core/state.js';
import { initialState } from '../../../src/core/state.js';
import { startProfile, stepTools, toolSearchScope, visibleTools } from '../../../src/core/tool-selection/step-tools.js';
import type { StepEnv } from '../../../src/core/step/step-env.js';
import { planStepCalls } from '../../../src/core/step/step-calls.js';
import type { FunctionToolSpec } from '../../../src/protocol/function-tool-spec.js';
import { createTaskRegistry } from '../../../src/tools/task-registry.js';
import { runToolSearch } from '../../../src/tools/tool-search.js';

const SERVICES = ['invoice', 'shipment', 'warehouse', 'customer', 'ticket', 'payroll'];
const ACTIONS = ['list', 'create', 'cancel', 'export'];

/** 24 function tools: an action on a service each ("listInvoice: List invoice records…"). */
const functions: FunctionToolSpec[] = SERVICES.flatMap((service) =>
  ACTIONS.map((action) => ({
    name: `${action}${service[0]!.toUpperCase()}${service.slice(1)}`,
    description: `${action[0]!.toUpperCase()}${action.slice(1)} ${service} records in the back office.`,
    risk: 'read_only' as const,
  })),
);

function env(input: Partial<AgentInput> = {}, specs: FunctionToolSpec[] = functions): StepEnv {
  const task = input.task ?? 'Cancel the shipment for order 42 and export the invoice';
  const state = initialState('task-1', 'system', task);
  state.step = 1;
  return {
    state,
    input: { task, workspace: '/w', selection: {}, maxSteps: 10, mode: 'default', askPolicy: 'deny', ...input },
    registry: createTaskRegistry(specs),
  };
}

const call = (id: string, name: string, args: Record<string, unknown>) => ({
  id,
  name,
  arguments: JSON.stringify(args),
  complete: true,
});
const turnOf = (content: string | null, ...toolCalls: ReturnType<typeof call>[]) => ({
  content,
  toolCalls,
  finishReason: 'tool_calls' as const,
  usage: { promptTokens: 1, completionTokens: 1, totalTokens: 2 },
  model: 'm',
});

describe('stepTools', () => {
  it('changes nothing within the limit: every visible tool, no trace, no selection state', () => {
    const small = env({}, functions.slice(0, 10));
    const tools = stepTools(small, 0);
    expect(tools).toEqual({ names: visibleTools(small, 0).map((tool) => tool.name) });
    expect(tools.names).toHaveLength(16);
    expect(small.state.toolSelection).toBeUndefined();
    expect(small.state.events).toEqual([]);
  });

  it('beyond the limit shows ToolSearch and the best matches for the task, and traces the selection', () => {
    const run = env();
    const tools = stepTools(run, 0);
    expect(tools.names).toHaveLength(16);
    expect(tools.names).toContain('ToolSearch');
    expect(tools.names).toEqual(expect.arrayContaining(['cancelShipment', 'exportInvoice']));
    // The tools matching two of the task's words rank first.
    expect(tools.selection!.ranked.slice(0, 3).sort()).toEqual(['cancelInvoice', 'cancelShipment', 'exportInvoice']);
    expect(tools.selection).toMatchObject({ candidates: 30, limit: 16, pinned: ['ToolSearch'] });
    expect(run.state.events.at(-1)).toMatchObject({ type: 'tool_selection', step: 1, data: tools.selection });
    expect(run.state.toolSelection).toMatchObject({ step: 1, shown: tools.names });
    // The same task over a registry built again selects the same tools: a replay sees what the run saw.
    expect(stepTools(env(), 0)).toEqual(tools);
  });

  it('honours --max-tools and keeps the tool a tool choice names', () => {
    const tools = stepTools(env({ maxTools: 5, toolChoice: { name: 'listPayroll' } }), 0);
    expect(tools.names).toHaveLength(5);
    expect(tools.selection!.pinned).toEqual(['ToolSearch', 'listPayroll']);
  });

  it('keeps the tools just called, and ranks the next steps on what the model said', () => {
    // A task no tool matches by its words: what ranks later comes from the turns.
    const run = env({ maxTools: 6, task: 'Zebra quantum' });
    expect(stepTools(run, 0).selection!.ranked).toEqual([]);
    planStepCalls(run, turnOf(null, call('a', 'listWarehouse', { input: 'all' })), 0);
    run.state.step = 2;
    const second = stepTools(run, 0);
    expect(second.selection).toMatchObject({ recent: ['listWarehouse'], ranked: [] });
    run.state.toolSelection!.context.push('The zebra wants the payroll export.');
    run.state.step = 3;
    expect(stepTools(run, 0).selection!.ranked[0]).toBe('exportPayroll');
    run.state.step = 2 + 3;
    expect(stepTools(run, 0).selection!.recent).toEqual([]);
  });
});

describe('ToolSearch in a selecting run', () => {
  it('searches every tool the step did not show, by the same index, and a found tool stays listed', () => {
    const run = env({ maxTools: 6 });
    const shown = stepTools(run, 0).names;
    const scope = toolSearchScope(run)!;
    expect(scope.has('cancelShipment')).toBe(false); // shown this step
    expect(scope.has('ToolSearch')).toBe(false);
    expect(scope.size).toBe(30 - (shown.length - 1));
    const found = runToolSearch(
      run.registry,
      { query: 'payroll cancel', max_results: 3 },
      { mode: 'default', searchScope: scope },
    );
    expect(found.discovered[0]).toBe('cancelPayroll');
    expect(found.discovered.every((name) => !shown.includes(name))).toBe(true);
    expect(
      runToolSearch(
        run.registry,
        { query: 'select:listTicket,cancelShipment', max_results: 5 },
        { mode: 'default', searchScope: scope },
      ).discovered,
    ).toEqual(['listTicket']);

    run.state.discovered.push('cancelPayroll');
    run.state.step = 2;
    const next = stepTools(run, 0);
    expect(next.selection!.discovered).toEqual(['cancelPayroll']);
    expect(next.names).toContain('cancelPayroll');
  });

  it('searches the deferred tools as before when nothing is selected and the run has no profile', () => {
    expect(toolSearchScope(env({}, functions.slice(0, 4)))).toBeUndefined();
  });
});

describe('profiles in a run', () => {
  it('resolves the profile once when the task starts, auto by the task, and names an unknown one', () => {
    const auto = env({ profile: 'auto', task: 'Explain why the invoice export exists' });
    expect(startProfile(auto.state, auto.input)).toBeUndefined();
    expect(auto.state.profile).toEqual({ name: 'read-only', reason: 'auto: explain, why' });
    const unknown = env({ profile: 'everything' });
    expect(startProfile(unknown.state, unknown.input)).toMatch(/Unknown tool profile 'everything'/);
    expect(unknown.state.profile).toBeUndefined();
  });

  it('offers only the profile’s tools and pins its own', () => {
    const run = env({ profile: 'code-edit' });
    startProfile(run.state, run.input);
    expect(visibleTools(run, 0).map((tool) => tool.name)).toEqual([
      'Bash',
      'EditFile',
      'Glob',
      'Grep',
      'ReadFile',
      'WriteFile',
    ]);
    const ops = env({ profile: 'ops', maxTools: 3 }, [
      ...functions,
      ...['mcp__kubernetes__list_pods', 'mcp__kubernetes__get_pod_logs', 'mcp__aws__s3_get_object'].map((name) => ({
        name,
        description: 'A cluster or cloud tool.',
        risk: 'read_only' as const,
      })),
    ]);
    startProfile(ops.state, ops.input);
    const tools = stepTools(ops, 0);
    expect(tools.selection!.pinned).toEqual(['ToolSearch', 'Bash', 'Grep', 'ReadFile']);
    expect(tools.selection!.candidates).toBe(7);
    expect(toolSearchScope(ops)).toEqual(
      new Set(['Glob', 'mcp__aws__s3_get_object', 'mcp__kubernetes__get_pod_logs', 'mcp__kubernetes__list_pods']),
    );
  });
});
