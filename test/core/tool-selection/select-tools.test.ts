// The per-step selection of core/tool-selection: what stays (pinned, discovered, recent), what ranks, the limit.
import { describe, expect, it } from 'vitest';
import type { SelectionRequest, ToolSelectionState } from '../../../src/core/tool-selection/select-tools.js';
import {
  MAX_CONTEXT_ENTRIES,
  RECENT_STEPS,
  noteCalls,
  noteTurn,
  recentTools,
  selectTools,
  selectionQuery,
} from '../../../src/core/tool-selection/select-tools.js';
import type { ToolIndex } from '../../../src/tools/tool-index.js';

// A ranking fixed by the test: the selection's own rules are what is under test here (tool-index.test.ts ranks).
const ranking = (order: string[]): ToolIndex & { queries: string[] } => {
  const queries: string[] = [];
  return {
    queries,
    rank(query, options = {}) {
      queries.push(query);
      const ranked = order
        .filter((name) => options.among?.has(name) ?? true)
        .map((name, position) => ({ name, score: order.length - position }));
      return options.limit === undefined ? ranked : ranked.slice(0, options.limit);
    },
  };
};

const candidates = Array.from({ length: 12 }, (_, index) => `Tool${String(index).padStart(2, '0')}`);

function request(overrides: Partial<SelectionRequest> = {}): SelectionRequest {
  return {
    candidates,
    finder: 'ToolSearch',
    limit: 6,
    pinned: [],
    discovered: [],
    recent: [],
    query: 'task',
    index: ranking(['Tool09', 'Tool03', 'Tool07', 'Tool01', 'Tool05', 'Tool11']),
    ...overrides,
  };
}

describe('selectTools', () => {
  it('selects nothing when every candidate fits', () => {
    expect(selectTools(request({ limit: 12 }))).toBeUndefined();
  });

  it('shows the finder and the best-ranked tools up to the limit, sorted by name, and records why', () => {
    const selection = selectTools(request())!;
    expect(selection.names).toEqual(['Tool01', 'Tool03', 'Tool05', 'Tool07', 'Tool09', 'ToolSearch']);
    expect(selection.record).toEqual({
      candidates: 12,
      limit: 6,
      pinned: ['ToolSearch'],
      discovered: [],
      recent: [],
      ranked: ['Tool09', 'Tool03', 'Tool07', 'Tool01', 'Tool05'],
      filled: [],
    });
  });

  it('fills the room a ranking leaves with the preferred tools, then by name: never ToolSearch alone', () => {
    const none = selectTools(request({ index: ranking([]), preferred: ['Tool10', 'Gone'] }))!;
    expect(none.record).toMatchObject({ ranked: [], filled: ['Tool10', 'Tool00', 'Tool01', 'Tool02', 'Tool03'] });
    expect(none.names).toEqual(['Tool00', 'Tool01', 'Tool02', 'Tool03', 'Tool10', 'ToolSearch']);
    const few = selectTools(request({ index: ranking(['Tool09']) }))!;
    expect(few.record).toMatchObject({ ranked: ['Tool09'], filled: ['Tool00', 'Tool01', 'Tool02', 'Tool03'] });
  });

  it('keeps pinned (names and patterns), discovered and recent tools before ranking the rest into the room left', () => {
    const selection = selectTools(
      request({ pinned: ['Tool0*', 'Missing'], limit: 13, candidates: [...candidates, 'Other', 'Extra'] }),
    )!;
    expect(selection.record.pinned).toEqual(['ToolSearch', ...candidates.slice(0, 10)]);
    const mixed = selectTools(request({ pinned: ['Tool10'], discovered: ['Tool02'], recent: ['Tool04', 'Tool02'] }))!;
    expect(mixed.record).toMatchObject({
      pinned: ['ToolSearch', 'Tool10'],
      discovered: ['Tool02'],
      recent: ['Tool04'],
      ranked: ['Tool09', 'Tool03'],
    });
    expect(mixed.names).toHaveLength(6);
  });

  it('never drops a tool that must stay, even beyond the limit; tools no longer offered are not shown', () => {
    const selection = selectTools(
      request({ limit: 3, discovered: ['Tool01', 'Tool02', 'Gone'], recent: ['Tool03', 'Tool04'] }),
    )!;
    expect(selection.names).toEqual(['Tool01', 'Tool02', 'Tool03', 'Tool04', 'ToolSearch']);
    expect(selection.record.ranked).toEqual([]);
  });

  it('is deterministic: the same input gives the same selection, whatever order the lists come in', () => {
    const first = selectTools(request({ discovered: ['Tool08', 'Tool02'], recent: ['Tool06', 'Tool04'] }));
    const second = selectTools(request({ discovered: ['Tool02', 'Tool08'], recent: ['Tool04', 'Tool06'] }));
    expect(second).toEqual(first);
  });
});

describe('the selection memory', () => {
  const memory = (): ToolSelectionState => ({ context: [], lastCalled: {}, step: 0, shown: [] });

  it('keeps tools called in the last RECENT_STEPS steps, and forgets older ones', () => {
    const selection = memory();
    noteCalls(selection, ['A', 'B'], 1);
    noteCalls(selection, ['B'], 3);
    expect(recentTools(selection, 2)).toEqual(['A']); // B is called later
    expect(recentTools(selection, 1 + RECENT_STEPS).sort()).toEqual(['A', 'B']);
    expect(recentTools(selection, 2 + RECENT_STEPS)).toEqual(['B']);
    noteCalls(selection, ['C'], 1 + RECENT_STEPS + 1);
    expect(Object.keys(selection.lastCalled).sort()).toEqual(['B', 'C']);
  });

  it('keeps a bounded context of assistant texts and called tools for the query, after the task', () => {
    const selection = memory();
    noteTurn(selection, '  ', []);
    expect(selection.context).toEqual([]);
    for (let turn = 0; turn < 5; turn++) noteTurn(selection, `thought ${turn} ${'x'.repeat(600)}`, ['Grep']);
    expect(selection.context).toHaveLength(MAX_CONTEXT_ENTRIES);
    expect(selection.context.at(-1)).toBe('Grep');
    expect(selection.context.at(-2)!.length).toBe(500);
    expect(selectionQuery('the task', ['a', 'b'])).toBe('the task\na\nb');
  });
});
