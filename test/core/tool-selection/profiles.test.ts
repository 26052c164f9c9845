// Tool profiles and the `--profile auto` keyword rule.
import { describe, expect, it } from 'vitest';
import {
  TOOL_PROFILES,
  matchesToolPattern,
  profileForTask,
  resolveProfile,
} from '../../../src/core/tool-selection/profiles.js';

describe('profileForTask', () => {
  it.each([
    ['Fix the failing date test in src/parse.ts', 'code-edit', 'auto: fix, failing, test'],
    ['Restart the checkout pods in prod and watch the alerts', 'ops', 'auto: restart, pods, prod, alerts'],
    ['Explain why the cache module exists and where it is used', 'read-only', 'auto: explain, why, where'],
    ['hello there', 'code-edit', 'auto: no keyword, the default'],
    // One hit each: the tie goes to the profile that can do more.
    ['update the deploy notes', 'code-edit', 'auto: update'],
    ['review the deploy', 'ops', 'auto: deploy'],
  ])('%s → %s', (task, name, reason) => {
    const resolved = profileForTask(task);
    expect(resolved.profile.name).toBe(name);
    expect(resolved.reason).toBe(reason);
    expect(profileForTask(task)).toEqual(resolved);
  });
});

describe('resolveProfile', () => {
  it('takes a name, auto, or nothing; rejects other names', () => {
    expect(resolveProfile(undefined, 'task')).toBeUndefined();
    expect(resolveProfile('ops', 'fix it')).toEqual({ profile: TOOL_PROFILES.ops, reason: 'chosen' });
    expect(resolveProfile('auto', 'fix it')!.profile.name).toBe('code-edit');
    expect(() => resolveProfile('everything', 'task')).toThrow(/Unknown tool profile 'everything'/);
  });

  it('gives read-only its mode, and every profile its pinned tools among its own', () => {
    expect(TOOL_PROFILES['read-only'].mode).toBe('read_only');
    for (const profile of Object.values(TOOL_PROFILES))
      for (const name of profile.pinned) expect(matchesToolPattern(profile.tools, name)).toBe(true);
  });
});

describe('matchesToolPattern', () => {
  it('matches names exactly and * as any run of characters, nothing else special', () => {
    expect(matchesToolPattern(['Read*'], 'ReadFile')).toBe(true);
    expect(matchesToolPattern(['mcp__github__*'], 'mcp__github__create_issue')).toBe(true);
    expect(matchesToolPattern(['mcp__github__*'], 'mcp__gitlab__get_job_log')).toBe(false);
    expect(matchesToolPattern(['mcp__*__list*'], 'mcp__jira__list_sprints')).toBe(true);
    expect(matchesToolPattern(['Grep'], 'GrepX')).toBe(false);
    expect(matchesToolPattern(['a.b'], 'axb')).toBe(false);
    expect(matchesToolPattern([], 'Grep')).toBe(false);
  });
});
