// Node-free: the environment a Bash command gets (docs/tools.md §5.3), by allowlist. The CLI reads the same list to
// start the embedded worker: what a command may see has to reach that worker first, and nothing more should.
import { commaList } from '../../core/comma-list.js';
import { envPassRefusal } from '../../core/env-pass.js';

/**
 * The worker's variables a command gets: where programs are, the locale and time zone, who the user is, the identity
 * git commits under. Anything else — API keys, database URLs, tokens, agent sockets — stays with the worker unless the
 * operator names it: DURABLE_AGENT_ENV_PASS (comma-separated) for every run, `--env-pass` for one run. HOME is the
 * commands' own, in the worker's data directory for the workspace (command-home.ts), never the worker's.
 */
const PASSED_NAMES: ReadonlySet<string> = new Set([
  'PATH',
  'USER',
  'LOGNAME',
  'SHELL',
  'LANG',
  'LANGUAGE',
  'TZ',
  'TMPDIR',
  'GIT_AUTHOR_NAME',
  'GIT_AUTHOR_EMAIL',
  'GIT_COMMITTER_NAME',
  'GIT_COMMITTER_EMAIL',
]);
const PASSED_PREFIX = /^LC_/;

/** The operator's own additions to the allowlist. */
export const ENV_PASS_VARIABLE = 'DURABLE_AGENT_ENV_PASS';

/** Variables added to every command's environment: non-interactive, no pagers, no colour (§5.3). */
export const BASH_ENV_ADDITIONS: Readonly<Record<string, string>> = {
  CI: '1',
  GIT_TERMINAL_PROMPT: '0',
  GIT_EDITOR: 'true',
  PAGER: 'cat',
  GIT_PAGER: 'cat',
  TERM: 'dumb',
  NO_COLOR: '1',
  AGENT_WORKER: '1',
};

/** Whether every command gets this variable (PATH, the locale, …), whatever the operator names. */
export function isAllowlisted(name: string): boolean {
  return PASSED_NAMES.has(name) || PASSED_PREFIX.test(name);
}

/** The names DURABLE_AGENT_ENV_PASS adds to the allowlist. */
export function operatorPassedNames(env: Readonly<Record<string, string | undefined>>): Set<string> {
  return new Set(commaList(env[ENV_PASS_VARIABLE]));
}

/**
 * A command's environment: the allowlisted variables of the worker's `env`, the names DURABLE_AGENT_ENV_PASS lists,
 * the names the run asked for (`runNames`, except the worker's own settings), BASH_ENV_ADDITIONS, and `overrides`.
 */
export function commandEnvironment(
  env: NodeJS.ProcessEnv,
  options: { runNames?: readonly string[]; overrides?: Record<string, string> } = {},
): Record<string, string> {
  const named = operatorPassedNames(env);
  for (const name of options.runNames ?? []) if (envPassRefusal(name) === undefined) named.add(name);
  const passed: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) continue;
    if (isAllowlisted(name) || named.has(name)) passed[name] = value;
  }
  return { ...passed, ...BASH_ENV_ADDITIONS, ...options.overrides };
}
