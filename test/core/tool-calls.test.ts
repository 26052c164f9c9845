// docs/tools.md §3 steps 1-4 as pure functions: id normalisation, planning (names, parsing, repair, duplicates) and
// partitioning.
import { describe, expect, it } from 'vitest';
import type { RawToolCall } from '../../src/protocol/model.js';
import type { ExecutablePlan, PlannedCall } from '../../src/core/tool-calls.js';
import { normalizeToolCallIds, partition, planToolCalls, toAssistantToolCalls } from '../../src/core/tool-calls.js';
import { builtinTools, toolSearch } from '../../src/tools/index.js';
import { createToolRegistry } from '../../src/tools/registry.js';

const registry = createToolRegistry([...builtinTools, toolSearch]);
registry.registerFunction({
  name: 'Lookup',
  description: 'Looks a word up.',
  risk: 'read_only',
  concurrencySafe: true,
  shouldDefer: true,
});
const lookup = {
  resolveName: (raw: string | undefined) => registry.resolveName(raw),
  get: (name: string) => registry.get(name),
  availableNames: () => registry.getSchemas({ mode: 'default' }).map((schema) => schema.function.name),
  isUndiscovered: (name: string) => name === 'Lookup',
};

function call(name: string | undefined, args: unknown, id?: string, complete = true): RawToolCall {
  return {
    ...(id !== undefined ? { id } : {}),
    ...(name !== undefined ? { name } : {}),
    arguments: typeof args === 'string' ? args : JSON.stringify(args),
    complete,
  };
}

function plan(calls: RawToolCall[], turn = 1): PlannedCall[] {
  return planToolCalls(calls, normalizeToolCallIds(calls, turn), lookup);
}

describe('normalizeToolCallIds (§3 step 1)', () => {
  it('fills missing ids deterministically and suffixes duplicates', () => {
    const calls = [
      call('Glob', {}, ''),
      call('Glob', {}, 'a'),
      call('Glob', {}, 'a'),
      call('Glob', {}),
      call('Glob', {}, 'a'),
    ];
    expect(normalizeToolCallIds(calls, 7)).toEqual([
      { id: 'call_auto_7_0' },
      { id: 'a' },
      { id: 'a#2', duplicateOf: 1 },
      { id: 'call_auto_7_3' },
      { id: 'a#3', duplicateOf: 1 },
    ]);
  });

  it('never gives two calls one id, even when the model sends the ids a rewrite or a made-up id would take', () => {
    const calls = [
      call('Glob', {}, 'x'),
      call('Glob', {}, 'x'),
      call('Glob', {}, 'x#2'),
      call('Glob', {}, ''),
      call('Glob', {}, 'call_auto_7_3'),
    ];
    expect(normalizeToolCallIds(calls, 7)).toEqual([
      { id: 'x' },
      { id: 'x#3', duplicateOf: 0 },
      { id: 'x#2' },
      { id: 'call_auto_7_3#2' },
      { id: 'call_auto_7_3' },
    ]);
  });

  it('records the final ids in the assistant message', () => {
    const calls = [call('ReadFile', { path: 'x' }, 'a'), call('ReadFile', { path: 'y' }, 'a')];
    expect(toAssistantToolCalls(calls, normalizeToolCallIds(calls, 1)).map((part) => part.id)).toEqual(['a', 'a#2']);
  });
});

describe('planToolCalls (§3 steps 2-3)', () => {
  it('resolves aliases and case, and reports unknown or missing names with the available tools', () => {
    const [aliased, cased, unknown, missing] = plan([
      call('read_file', { path: 'a' }),
      call('GLOB', { pattern: '*' }),
      call('toString', {}),
      call(undefined, {}),
    ]);
    expect(aliased).toMatchObject({
      state: 'ready',
      tool: { name: 'ReadFile' },
      repairs: [{ stage: 'name', kind: 'tool_name', from: 'read_file', to: 'ReadFile' }],
    });
    expect(cased).toMatchObject({ state: 'ready', tool: { name: 'Glob' } });
    for (const failed of [unknown, missing]) {
      expect(failed).toMatchObject({
        state: 'failed',
        envelope: { error: { code: 'NOT_FOUND', details: { kind: 'unknown_tool' } } },
      });
      expect((failed as Extract<PlannedCall, { state: 'failed' }>).envelope.error!.details!.available_tools).toContain(
        'ReadFile',
      );
    }
    expect((missing as Extract<PlannedCall, { state: 'failed' }>).envelope.error!.details!.requested).toBe(
      'unknown_tool',
    );
  });

  it('turns malformed, invalid and incomplete arguments into INVALID_PARAM without running anything', () => {
    const [malformed, missingRequired, truncated] = plan([
      call('ReadFile', '{"path": [1, 2'),
      call('EditFile', { old_string: 'a', new_string: 'b' }),
      call('Bash', '{"command": "rm -rf build/ta', 'c', false),
    ]);
    expect(malformed).toMatchObject({ state: 'failed', envelope: { error: { code: 'INVALID_PARAM' } } });
    expect(missingRequired).toMatchObject({
      state: 'failed',
      envelope: { error: { details: { reason: 'missing_required', missing: ['path'] } } },
    });
    expect(truncated).toMatchObject({
      state: 'failed',
      envelope: { error: { details: { reason: 'incomplete_arguments' } } },
    });
  });

  it('marks an exact duplicate (same id, tool and arguments) to be answered, never run; a different one runs', () => {
    const plans = plan([
      call('Bash', { command: 'npm test' }, 'x'),
      call('Bash', { command: 'npm test' }, 'x'),
      call('Bash', { command: 'npm run lint' }, 'x'),
      call('ReadFile', { path: 'a' }, 'y'),
      call('ReadFile', { path: 'a' }, 'y'),
    ]);
    expect(plans.map((entry) => entry.state)).toEqual(['ready', 'duplicate', 'ready', 'ready', 'duplicate']);
    expect(plans[1]).toMatchObject({ callId: 'x#2', duplicateOf: 0 });
    expect(plans[4]).toMatchObject({ callId: 'y#2', duplicateOf: 3 });
  });

  it('sends undiscovered deferred tools to ToolSearch, and maps function-tool input (§12)', () => {
    const [hidden] = plan([call('Lookup', { input: 'x' })]);
    expect(hidden).toMatchObject({
      state: 'failed',
      envelope: { error: { code: 'NOT_FOUND', details: { hint: 'use ToolSearch' } } },
    });
    const discovered = { ...lookup, isUndiscovered: () => false };
    const calls = [call('Lookup', 'plain words'), call('Lookup', { word: 'single' }), call('Lookup', { input: 42 })];
    const plans = planToolCalls(calls, normalizeToolCallIds(calls, 1), discovered);
    expect(plans.map((entry) => (entry.state === 'ready' ? entry.input : entry.state))).toEqual([
      { input: 'plain words' },
      { input: 'single' },
      { input: '42' },
    ]);
  });
});

describe('partition (§3 step 4)', () => {
  it('groups consecutive concurrency-safe calls and runs everything else alone, in order', () => {
    const plans = plan([
      call('ReadFile', { path: 'a' }),
      call('Glob', { pattern: '*' }),
      call('Bash', { command: 'ls' }),
      call('Grep', { pattern: 'x' }),
      call('Nope', {}),
      call('ReadFile', { path: 'b' }),
      call('ReadFile', { path: 'c' }),
      call('EditFile', { path: 'a', old_string: 'a', new_string: 'b' }),
    ]);
    expect(
      partition(plans as ExecutablePlan[]).map((batch) => [batch.safe, batch.calls.map((entry) => entry.index)]),
    ).toEqual([
      [true, [0, 1]],
      [false, [2]],
      [true, [3]],
      [false, [4]],
      [true, [5, 6]],
      [false, [7]],
    ]);
  });
});

describe('arguments the repair had to close (cut short, yet sent as complete)', () => {
  it.each([
    ['Bash', '{"command":"rm -rf buil'],
    ['WriteFile', '{"path":"notes.txt","content":"half a thou'],
    ['EditFile', '{"path":"a.ts","old_string":"x","new_string":"y'],
  ])('%s does not run: INVALID_PARAM, re-issue the call', (name, raw) => {
    const [planned] = plan([call(name, raw, 'c1')]);
    expect(planned).toMatchObject({
      state: 'failed',
      envelope: { error: { code: 'INVALID_PARAM', details: { reason: 'truncated_arguments' } } },
    });
  });

  it('a read runs on what arrived, with the repair recorded', () => {
    const [planned] = plan([call('ReadFile', '{"path":"a.t', 'c1')]);
    expect(planned).toMatchObject({ state: 'ready', input: { path: 'a.t' } });
    expect(planned?.state === 'ready' && planned.repairs.map((repair) => repair.kind)).toContain('closed_truncated');
  });
});
