// Workflow-safe: named tool profiles — which tools a class of task gets, and the defaults it runs with — and the
// keyword rule `--profile auto` picks one by. Plain data and pure functions of the task text.
import type { AgentMode } from '../../protocol/agent-mode.js';
import type { ProfileName } from '../../protocol/profile-names.js';
import { AUTO_PROFILE, PROFILE_NAMES } from '../../protocol/profile-names.js';
export { AUTO_PROFILE } from '../../protocol/profile-names.js';
import { builtinTools } from '../../tools/index.js';
import { task } from '../../tools/task.js';
import { splitWords } from '../../tools/search-terms.js';

/** The tools a class of task gets and how its runs start. */
export interface ToolProfile {
  name: ProfileName;
  /** One line for `--help` and the README. */
  summary: string;
  /** Tool names and patterns (`*` matches any run of characters: `Read*`, `mcp__github__*`) the profile offers. */
  tools: readonly string[];
  /** Shown at every step, whatever the ranking (when the run's mode and breakers allow them). */
  pinned: readonly string[];
  /** The mode a run with this profile starts in unless it names one. */
  mode: AgentMode;
  /** At most this many tools per step, unless the run says otherwise. */
  maxTools: number;
}

/** The built-in tools (and Task) a profile offers (its `profiles` field names the profile), or only those it pins. */
function builtinsOf(profile: ProfileName, only?: 'pinned'): string[] {
  return [...builtinTools, task]
    .filter((contract) => {
      const place = contract.profiles?.[profile];
      return only === undefined ? place !== undefined : place === only;
    })
    .map((contract) => contract.name);
}

/** The profiles, by name. */
export const TOOL_PROFILES: Readonly<Record<ProfileName, ToolProfile>> = {
  'read-only': {
    name: 'read-only',
    summary: 'questions, reviews and investigations: every tool that only reads, nothing that changes anything',
    tools: ['*'],
    pinned: builtinsOf('read-only', 'pinned'),
    mode: 'read_only',
    maxTools: 12,
  },
  'code-edit': {
    name: 'code-edit',
    summary: 'changes to the workspace: the file and shell tools, and source hosting (GitHub, GitLab, git)',
    tools: [...builtinsOf('code-edit'), 'mcp__github__*', 'mcp__gitlab__*', 'mcp__git__*'],
    pinned: builtinsOf('code-edit', 'pinned'),
    mode: 'default',
    maxTools: 16,
  },
  ops: {
    name: 'ops',
    summary: 'operations: the shell and read tools, clusters, clouds, monitoring, incidents and chat',
    tools: [
      ...builtinsOf('ops'),
      'mcp__kubernetes__*',
      'mcp__k8s__*',
      'mcp__docker__*',
      'mcp__aws__*',
      'mcp__gcp__*',
      'mcp__azure__*',
      'mcp__terraform__*',
      'mcp__prometheus__*',
      'mcp__grafana__*',
      'mcp__datadog__*',
      'mcp__sentry__*',
      'mcp__pagerduty__*',
      'mcp__opsgenie__*',
      'mcp__slack__*',
      'mcp__github__*',
    ],
    pinned: builtinsOf('ops', 'pinned'),
    mode: 'default',
    maxTools: 24,
  },
};

/** A run's profile and why it has it (`chosen`, or the words of the task the auto rule counted). */
export interface ResolvedProfile {
  profile: ToolProfile;
  reason: string;
}

// The auto rule's words, compared lower-cased and whole. Each names a kind of work, not a tool.
const OPS_WORDS = new Set(
  (
    'deploy deploys deployed deploying deployment deployments rollout rollback restart restarts pod pods cluster ' +
    'clusters kubernetes k8s kubectl helm namespace node nodes container containers docker incident incidents ' +
    'outage outages alert alerts alerting oncall page paging latency uptime cpu memory scale scaling autoscaling ' +
    'terraform infra infrastructure production prod staging ec2 s3 lambda dns certificate certificates metrics ' +
    'dashboard dashboards monitoring server servers'
  ).split(' '),
);
const CODE_WORDS = new Set(
  (
    'fix fixes implement add rename refactor change modify update edit write rewrite migrate port remove delete ' +
    'bug bugs test tests failing compile typo function functions class method module feature code lint format'
  ).split(' '),
);
const READ_WORDS = new Set(
  (
    'explain why review summarize summarise describe understand analyze analyse audit investigate inspect find where ' +
    'list show read compare'
  ).split(' '),
);

/**
 * `--profile auto`: counts the task's words that name ops work, code changes and reading; the most hits wins. A tie
 * goes to the profile that can do more (code-edit, then ops, then read-only), and a task with no such word is
 * code-edit, the agent's own kind of work.
 */
export function profileForTask(task: string): ResolvedProfile {
  const words = splitWords(task).map((word) => word.toLowerCase());
  const hits = (vocabulary: ReadonlySet<string>) => [...new Set(words.filter((word) => vocabulary.has(word)))];
  // In tie-break order.
  const counted: [ProfileName, string[]][] = [
    ['code-edit', hits(CODE_WORDS)],
    ['ops', hits(OPS_WORDS)],
    ['read-only', hits(READ_WORDS)],
  ];
  let best = counted[0]!;
  for (const entry of counted) if (entry[1].length > best[1].length) best = entry;
  const [name, matched] = best;
  return {
    profile: TOOL_PROFILES[name],
    reason: matched.length > 0 ? `auto: ${matched.join(', ')}` : 'auto: no keyword, the default',
  };
}

/** The profile a run asked for (a name or `auto`); undefined when it named none. Throws for an unknown name. */
export function resolveProfile(requested: string | undefined, task: string): ResolvedProfile | undefined {
  if (requested === undefined) return undefined;
  if (requested === AUTO_PROFILE) return profileForTask(task);
  if (!isProfileName(requested))
    throw new Error(`Unknown tool profile '${requested}': one of ${[...PROFILE_NAMES, AUTO_PROFILE].join(', ')}.`);
  return { profile: TOOL_PROFILES[requested], reason: 'chosen' };
}

/** True for the name of a profile. */
export function isProfileName(name: string): name is ProfileName {
  return (PROFILE_NAMES as readonly string[]).includes(name);
}

/** True when `name` is one of `patterns`, or matches one with `*` standing for any run of characters. */
export function matchesToolPattern(patterns: readonly string[], name: string): boolean {
  return patterns.some((pattern) => (pattern.includes('*') ? wildcard(pattern).test(name) : pattern === name));
}

// Patterns are few and checked against every tool at every step: each is compiled once.
const compiled = new Map<string, RegExp>();

function wildcard(pattern: string): RegExp {
  let regex = compiled.get(pattern);
  if (regex === undefined) {
    const escaped = pattern.split('*').map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'));
    regex = new RegExp(`^${escaped.join('.*')}$`);
    compiled.set(pattern, regex);
  }
  return regex;
}
