// The line `history` prints under a step whose tools were selected: every tool shown, in the order of why.
import { describe, expect, it } from 'vitest';
import { selectionLine } from '../../src/cli/commands/history.js';

describe('selectionLine', () => {
  it('lists every shown tool, the ones that filled the room included', () => {
    const line = selectionLine({
      candidates: 20,
      limit: 5,
      pinned: ['ToolSearch'],
      discovered: ['mcp__fs__stat'],
      recent: ['ReadFile'],
      ranked: [],
      filled: ['Bash', 'EditFile'],
    });
    expect(line).toBe('tools: 5 of 20 — ToolSearch, mcp__fs__stat, ReadFile, Bash, EditFile');
  });
});
