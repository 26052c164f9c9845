// Node: the git rows of the C.5.2 level table, in table order (interactive, destructive, network, read-only, write).
import type { CommandContext, CommandVerdict, PathUse } from './verdict.js';
import { readPaths, verdict } from './verdict.js';
import type { ParsedArguments, ShellWord } from './words.js';
import { hasOption, hasShortLetter, parseArguments } from './words.js';

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
  configOverride: boolean;
  paginate: boolean;
  globals: string[];
}

function parseGit(args: readonly ShellWord[]): GitCommand {
  const paths: PathUse[] = [];
  const globals: string[] = [];
  let configOverride = false;
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
    if (name === '-c' || name === '--config-env' || (name === '--exec-path' && equals !== -1)) configOverride = true;
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
  // `-c`/`--config-env` can point git at any program (pager, fsmonitor, ssh command): never auto-allow or remember it.
  if (git.configOverride && (row.level === 'read_only' || row.level === 'write' || row.level === 'network_write')) {
    return { ...verdict('unclassified', 'git_config_override', 'git with -c/--config-env can run any program'), paths };
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
  const parsed = parseArguments(git.args, { withValue: GIT_LOCAL_WITH_VALUE });
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

  if (NETWORK_SUBCOMMANDS.has(subcommand)) {
    const paths = subcommand === 'clone' && parsed.positionals[1] ? [{ word: parsed.positionals[1] }] : [];
    return { ...verdict('network_write', 'git_remote', `${sub} talks to a remote`, paths), approvalKey: sub };
  }
  if (subcommand === 'submodule' && parsed.positionals[0]?.value === 'update') {
    return { ...verdict('network_write', 'git_remote', 'git submodule update fetches from remotes'), approvalKey: sub };
  }

  const read = readRow(git, subcommand, parsed);
  if (read) return read;

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
    parsed.options.some((option) => UNSAFE_READ_OPTIONS.includes(option.name)) ||
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
