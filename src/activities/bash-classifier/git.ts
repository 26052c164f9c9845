// Node: the git rows of the docs/tools.md §5.2 level table, in table order (interactive, destructive, network,
// read-only, write).
import { remoteHost, urlHost } from './hosts.js';
import type { CommandContext, CommandVerdict, PathUse } from './verdict.js';
import { readPaths, verdict } from './verdict.js';
import type { ParsedArguments, ShellWord } from './words.js';
import { hasOption, hasShortLetter, optionMatches, splitShellArguments } from './words.js';

const GLOBAL_WITH_VALUE = new Set([
  '-C',
  '-c',
  '--git-dir',
  '--work-tree',
  '--namespace',
  '--config-env',
  '--super-prefix',
  '--attr-source',
]);
const GLOBAL_PATHS = new Set(['-C', '--git-dir', '--work-tree']);
/** Global options that point git at another repository, configuration and hooks than the workspace's `.git`. */
const GIT_DIR_OPTIONS = ['--git-dir', '--work-tree', '--namespace'];

/** Read-only subcommands (the table's list plus a few more that only print). */
const READ_SUBCOMMANDS = new Set([
  'status',
  'log',
  'diff',
  'show',
  'rev-parse',
  'ls-files',
  'blame',
  'grep',
  'describe',
  'shortlog',
  'ls-tree',
  'cat-file',
  'rev-list',
  'merge-base',
  'show-ref',
]);

/** Options that make a read-only subcommand write a file or run a program. */
const UNSAFE_READ_OPTIONS = [
  '--output',
  '--ext-diff',
  '--textconv',
  '--exec',
  '--open-files-in-pager',
  '-O',
  '--paginate',
];

const BRANCH_LISTING = new Set([
  '-a',
  '-r',
  '-v',
  '-vv',
  '--list',
  '-l',
  '--all',
  '--remotes',
  '--verbose',
  '--show-current',
  '--no-color',
]);

const NETWORK_SUBCOMMANDS = new Set(['push', 'pull', 'fetch', 'clone']);

interface GitCommand {
  subcommand: string | undefined;
  args: ShellWord[];
  paths: PathUse[];
  /** What overrides the repository's own configuration (`-c core.fsmonitor`, `--git-dir`), for the reason. */
  configOverride: string | undefined;
  paginate: boolean;
  globals: string[];
}

function parseGit(args: readonly ShellWord[]): GitCommand {
  const paths: PathUse[] = [];
  const globals: string[] = [];
  let configOverride: string | undefined;
  let paginate = false;
  for (let index = 0; index < args.length; index++) {
    const word = args[index] as ShellWord;
    const value = word.value;
    if (value === undefined || !value.startsWith('-')) {
      return { subcommand: value, args: args.slice(index + 1), paths, configOverride, paginate, globals };
    }
    const equals = value.startsWith('--') ? value.indexOf('=') : -1;
    const name = equals === -1 ? value : value.slice(0, equals);
    globals.push(name);
    let optionValue: ShellWord | undefined;
    if (equals !== -1) optionValue = { ...word, value: value.slice(equals + 1) };
    else if (GLOBAL_WITH_VALUE.has(name)) {
      optionValue = args[index + 1];
      index++;
    }
    if (name === '-c' || name === '--config-env') {
      const key = optionValue?.value?.split('=')[0];
      configOverride ??= `git ${name} ${key ?? '<dynamic>'}`;
    } else if (
      (name === '--exec-path' && equals !== -1) ||
      GIT_DIR_OPTIONS.some((option) => option.startsWith(name) && name.length > 4)
    ) {
      configOverride ??= `git ${name}`;
    }
    if (name === '-p' || name === '--paginate') paginate = true;
    if (GLOBAL_PATHS.has(name) && optionValue) paths.push({ word: optionValue });
  }
  return { subcommand: undefined, args: [], paths, configOverride, paginate, globals };
}

const GIT_LOCAL_WITH_VALUE = [
  '-b',
  '-B',
  '--orphan',
  '-m',
  '--message',
  '-F',
  '--file',
  '-C',
  '-c',
  '--author',
  '--date',
];

/** The first git row that matches; unknown subcommands (and aliases) are unclassified. */
export async function gitVerdict(args: readonly ShellWord[], context: CommandContext): Promise<CommandVerdict> {
  const git = parseGit(args);
  const row = await gitRow(git, context);
  const paths = [...git.paths, ...row.paths];
  // `-c`/`--config-env`/`--git-dir` stand in for .git/config, which can point git at any program (pager, fsmonitor,
  // ssh command, filters): never auto-allow or remember it.
  if (git.configOverride && row.level !== 'forbidden' && row.level !== 'destructive') {
    const reason = `${git.configOverride} overrides the protected .git configuration, which can make git run any program`;
    return { ...verdict('unclassified', 'git_config_override', reason), paths };
  }
  return { ...row, paths };
}

async function gitRow(git: GitCommand, context: CommandContext): Promise<CommandVerdict> {
  const { subcommand } = git;
  if (subcommand === undefined) {
    const onlyInfo = git.globals.length === 1 && ['--version', '--help', '-v', '-h'].includes(git.globals[0] as string);
    return onlyInfo
      ? verdict('read_only', 'version_query', 'prints version or help')
      : verdict('unclassified', 'git_other', 'git without a subcommand');
  }
  const parsed = splitShellArguments(git.args, { withValue: GIT_LOCAL_WITH_VALUE });
  const sub = `git ${subcommand}`;

  if (subcommand === 'rebase' && (hasOption(parsed, '-i', '--interactive') || hasShortLetter(parsed, 'i'))) {
    return verdict('forbidden', 'interactive', 'interactive');
  }
  if (
    subcommand === 'add' &&
    (hasOption(parsed, '-i', '-p', '--interactive', '--patch') || hasShortLetter(parsed, 'p'))
  ) {
    return verdict('forbidden', 'interactive', 'interactive');
  }

  const destructive = await destructiveRow(subcommand, parsed, context);
  if (destructive) return destructive;

  if (NETWORK_SUBCOMMANDS.has(subcommand)) return remoteRow(subcommand, parsed);
  if (subcommand === 'submodule' && parsed.positionals[0]?.value === 'update') {
    return { ...verdict('network_write', 'git_remote', 'git submodule update fetches from remotes'), approvalKey: sub };
  }

  const read = readRow(git, subcommand, parsed);
  if (read) return read;

  const protectedWrite = protectedRow(subcommand, parsed);
  if (protectedWrite) return protectedWrite;

  if (subcommand === 'add' || subcommand === 'init' || (subcommand === 'commit' && !hasOption(parsed, '--amend'))) {
    const paths = subcommand === 'init' ? readPaths(parsed.positionals.slice(0, 1)) : [];
    return verdict('write', 'git_write', `${sub} changes the repository`, paths);
  }
  if (subcommand === 'stash') {
    const action = parsed.positionals[0]?.value;
    if (action === undefined || action === 'push' || action === 'save')
      return verdict('write', 'git_write', 'git stash saves changes');
  }
  return verdict('unclassified', 'git_other', `${sub} is not a known safe git command`);
}

/** Options of a remote command that run a program of the caller's choosing or write the new repository's config. */
const REMOTE_PROGRAM_OPTIONS = [
  '--upload-pack',
  '--receive-pack',
  '--exec',
  '-u',
  '--config',
  '-c',
  '--template',
  '--repo',
];

/**
 * push, pull, fetch, clone. A remote given as a URL (`https://host/r`, `git@host:r`) is named in the key, so approving
 * it covers that host only; a remote by name (`origin`) comes from the protected .git/config, so `git push` covers it.
 */
function remoteRow(subcommand: string, parsed: ParsedArguments): CommandVerdict {
  const sub = `git ${subcommand}`;
  const paths: PathUse[] =
    subcommand === 'clone' && parsed.positionals[1] ? [{ word: parsed.positionals[1], write: true }] : [];
  const base = verdict('network_write', 'git_remote', `${sub} talks to a remote`, paths);
  const programs = parsed.options.find((option) =>
    REMOTE_PROGRAM_OPTIONS.some(
      (name) =>
        option.name === name || (name.startsWith('--') && option.name.length > 4 && name.startsWith(option.name)),
    ),
  );
  if (programs) {
    return verdict(
      'unclassified',
      'git_remote_program',
      `${sub} ${programs.name} runs a program or sets the repository's configuration`,
      paths,
    );
  }
  const remote = parsed.positionals[0];
  if (remote === undefined) return { ...base, approvalKey: sub };
  const value = remote.value;
  if (value === undefined) return base;
  // `<transport>::<address>` runs the helper `git-remote-<transport>` (`ext::sh -c …` runs a command).
  if (value.includes('::')) {
    return verdict('unclassified', 'git_remote_program', `${sub} through a remote helper runs a program`, paths);
  }
  const isUrl = /^[a-z][a-z0-9+.-]*:\/\//i.test(value) || /^[^/:]+:/.test(value);
  if (!isUrl) {
    // A remote given as a path is a repository on this machine, which must be inside the workspace.
    const local = value.includes('/') || value.startsWith('.') ? [{ word: remote }] : [];
    return { ...base, paths: [...paths, ...local], approvalKey: sub };
  }
  const host = /^[a-z][a-z0-9+.-]*:\/\//i.test(value) ? urlHost(value) : remoteHost(value);
  if (host === undefined) return base;
  return { ...base, reason: `${sub} talks to ${host}`, approvalKey: `${sub} ${host}`, hosts: [host] };
}

/** Read forms of `git config` (`--get`, `--list`, `git config get …`); everything else writes a config file. */
const CONFIG_READ_OPTIONS = new Set([
  '--get',
  '--get-all',
  '--get-regexp',
  '--get-urlmatch',
  '--get-color',
  '--get-colorbool',
  '-l',
  '--list',
]);
const CONFIG_READ_SUBCOMMANDS = new Set(['get', 'list']);

/** git commands that change .git itself beyond what `add`/`commit` do: its configuration, hooks or location. */
function protectedRow(subcommand: string, parsed: ParsedArguments): CommandVerdict | undefined {
  const protectedWrite = (reason: string): CommandVerdict => ({
    ...verdict('write', 'git_protected_write', reason),
    protectedWrite: reason,
  });
  if (subcommand === 'config') {
    const first = parsed.positionals[0]?.value;
    const reads =
      (parsed.options.some((option) => CONFIG_READ_OPTIONS.has(option.name)) &&
        !parsed.options.some((option) => option.name === '--edit' || option.name === '-e')) ||
      (first !== undefined && CONFIG_READ_SUBCOMMANDS.has(first)) ||
      (first !== undefined && parsed.positionals.length === 1 && parsed.options.length === 0);
    if (reads) return verdict('read_only', 'git_read', 'git config reads the configuration');
    return protectedWrite('git config writes .git/config (or another git configuration file), a protected path');
  }
  if (subcommand === 'init') {
    const option = parsed.options.find((candidate) =>
      ['--template', '--separate-git-dir'].some((name) => candidate.name.length > 4 && name.startsWith(candidate.name)),
    );
    if (option) return protectedWrite(`git init ${option.name} writes .git hooks or moves .git, a protected path`);
  }
  if (subcommand === 'remote') {
    const action = parsed.positionals[0]?.value;
    if (action !== undefined && !['show', 'get-url'].includes(action))
      return protectedWrite(`git remote ${action} writes .git/config, a protected path`);
  }
  return undefined;
}

async function destructiveRow(
  subcommand: string,
  parsed: ParsedArguments,
  context: CommandContext,
): Promise<CommandVerdict | undefined> {
  const destructive = (reason: string): CommandVerdict => verdict('destructive', 'git_destructive', reason);
  switch (subcommand) {
    case 'reset':
    case 'clean':
    case 'restore':
    case 'rebase':
      return destructive(`git ${subcommand} can discard work`);
    case 'checkout': {
      if (
        hasOption(parsed, '-f', '--force', '-p', '--patch') ||
        parsed.positionals.some((word) => word.value === '.')
      ) {
        return destructive('git checkout overwrites files');
      }
      if (parsed.endOfOptions || (await namesExistingPath(parsed, context))) {
        return destructive('git checkout overwrites files');
      }
      return undefined;
    }
    case 'switch':
      return hasOption(parsed, '-f', '--force', '--discard-changes')
        ? destructive('git switch discards changes')
        : undefined;
    case 'stash': {
      const action = parsed.positionals[0]?.value;
      return action === 'drop' || action === 'clear'
        ? destructive(`git stash ${action} deletes stashed changes`)
        : undefined;
    }
    case 'branch':
      return hasOption(parsed, '-d', '-D', '--delete') ? destructive('git branch -d deletes a branch') : undefined;
    case 'tag':
      return hasOption(parsed, '-d', '--delete') ? destructive('git tag -d deletes a tag') : undefined;
    case 'commit':
      return hasOption(parsed, '--amend') ? destructive('git commit --amend rewrites history') : undefined;
    case 'push': {
      const force =
        hasOption(parsed, '--force', '-f', '--force-with-lease', '--force-if-includes', '--mirror', '--delete', '-d') ||
        hasShortLetter(parsed, 'f') ||
        parsed.positionals.some((word) => word.value?.startsWith('+') === true);
      return force ? destructive('git push --force rewrites or deletes remote history') : undefined;
    }
    default:
      return undefined;
  }
}

/** `git checkout <x>` is a file checkout (destructive) when `<x>` names an existing path; a branch name does not. */
async function namesExistingPath(parsed: ParsedArguments, context: CommandContext): Promise<boolean> {
  for (const word of parsed.positionals) {
    const resolution = await context.resolve(word);
    if (resolution.kind === 'inside' && resolution.exists) return true;
  }
  return false;
}

function readRow(git: GitCommand, subcommand: string, parsed: ParsedArguments): CommandVerdict | undefined {
  const unsafe =
    git.paginate ||
    parsed.options.some((option) => optionMatches(option, UNSAFE_READ_OPTIONS)) ||
    (subcommand === 'grep' && hasShortLetter(parsed, 'O'));
  const reading = (reason: string, paths: PathUse[] = []): CommandVerdict =>
    unsafe
      ? verdict(
          'unclassified',
          'git_unsafe_option',
          `git ${subcommand} with an option that writes files or runs programs`,
          paths,
        )
      : verdict('read_only', 'git_read', reason, paths);

  if (READ_SUBCOMMANDS.has(subcommand)) {
    const paths = subcommand === 'diff' && hasOption(parsed, '--no-index') ? readPaths(parsed.positionals) : [];
    return reading(`git ${subcommand} only reads the repository`, paths);
  }
  const first = parsed.positionals[0]?.value;
  if (subcommand === 'branch') {
    const listing =
      parsed.options.every((option) => BRANCH_LISTING.has(option.name)) &&
      (parsed.positionals.length === 0 || hasOption(parsed, '--list', '-l'));
    return listing ? reading('git branch lists branches') : undefined;
  }
  if (subcommand === 'stash' && (first === 'list' || first === 'show')) return reading(`git stash ${first} only reads`);
  if (
    subcommand === 'tag' &&
    (parsed.positionals.length === 0 || hasOption(parsed, '-l', '--list')) &&
    parsed.options.every((option) => ['-l', '--list', '-n'].includes(option.name))
  ) {
    return reading('git tag lists tags');
  }
  if (subcommand === 'remote' && parsed.positionals.length === 0) return reading('git remote lists remotes');
  return undefined;
}
