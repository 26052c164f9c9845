// Node: the level table of docs/tools.md §5.2 for one simple command, row by row (the first matching row wins),
// together with the arguments each command must keep inside the workspace. Wrappers are already peeled off
// (wrappers.ts); the table's data is in command-tables.ts, the rows that read a command's arguments closely in the
// files imported below.
import { buildVerdict, shellVerdict } from './code-runners.js';
import {
  CODE_RUNNERS,
  DELETE,
  DISK,
  INTERACTIVE,
  KILL,
  OWNERSHIP,
  PATH_OPERAND_COMMANDS,
  PATH_VALUE_OPTIONS,
  POWER,
  PRIVILEGE,
  READ_COMMANDS,
  REPL,
  ROOT_GLOBS,
  VALUE_OPTIONS,
} from './command-tables.js';
import { copyPaths } from './copy-paths.js';
import { gitVerdict } from './git.js';
import { isInteractiveSsh, networkVerdict } from './network.js';
import { packageManagerVerdict } from './package-managers.js';
import { directoryVerdict, readCommandExtras, unsafeReadOption } from './read-commands.js';
import { findVerdict, grepVerdict, perlInPlace, sedPaths, sedVerdict } from './text-tools.js';
import type { CommandContext, CommandVerdict, PathUse } from './verdict.js';
import { readPaths, verdict } from './verdict.js';
import type { ParsedArguments, ShellWord } from './words.js';
import { hasOption, hasShortLetter, optionMatches, splitShellArguments } from './words.js';

/** The table's reason for interactive programs. */
const INTERACTIVE_REASON = 'interactive';

function operands(name: string, args: readonly ShellWord[]): ParsedArguments {
  return splitShellArguments(args, { withValue: VALUE_OPTIONS[name] ?? [], plusOptions: name === 'chmod' });
}

/** Path uses of a command whose operands are all paths: the operands plus path-valued options. */
function operandPaths(name: string, parsed: ParsedArguments): PathUse[] {
  const paths = readPaths(parsed.positionals);
  const valued = PATH_VALUE_OPTIONS[name];
  for (const option of parsed.options) {
    if (!option.value) continue;
    if (optionMatches(option, valued?.writes ?? [])) paths.push({ word: option.value, write: true });
    else if (optionMatches(option, valued?.reads ?? [])) paths.push({ word: option.value });
  }
  return paths;
}

/** True when the command's operands are paths, so operands appended by `xargs` cannot be checked. */
export function takesPathOperands(name: string): boolean {
  return PATH_OPERAND_COMMANDS.has(name) || ['grep', 'egrep', 'fgrep', 'rg', 'find', 'sed', 'jq'].includes(name);
}

/** The classification of one simple command (§5.2 level table); `name` is the basename of the command word. */
export async function commandVerdict(
  name: string,
  args: readonly ShellWord[],
  context: CommandContext,
): Promise<CommandVerdict> {
  const parsed = operands(name, args);
  const paths = PATH_OPERAND_COMMANDS.has(name) ? operandPaths(name, parsed) : [];

  // forbidden
  if (PRIVILEGE.has(name)) return verdict('forbidden', 'privilege_escalation', `${name} runs commands as another user`);
  if (POWER.has(name)) return verdict('forbidden', 'system_destructive', `${name} stops the machine`);
  if (DISK.has(name) || name.startsWith('mkfs.'))
    return verdict('forbidden', 'system_destructive', `${name} formats or repartitions disks`);
  if (name === 'dd' && args.some((word) => word.value?.startsWith('of=') === true)) {
    return verdict('forbidden', 'system_destructive', 'dd of= writes raw devices or files');
  }
  if ((name === 'rm' || name === 'rmdir') && (await targetsWorkspaceRoot(parsed, context))) {
    return verdict('forbidden', 'workspace_root_deletion', `${name} would delete the workspace itself`, paths);
  }
  if (INTERACTIVE.has(name) || (name === 'ssh' && isInteractiveSsh(args)) || (REPL.test(name) && args.length === 0)) {
    return verdict('forbidden', 'interactive', INTERACTIVE_REASON, paths);
  }
  if (name === 'git') return gitVerdict(args, context);

  // shells and eval run other code: classify what they run, or give up
  const shell = shellVerdict(name, args, context);
  if (shell) return shell;
  if (name === 'eval') return verdict('unclassified', 'eval', 'eval runs a string as code');
  if (name === 'source' || name === '.') return verdict('unclassified', 'source', `${name} runs a script file`);

  // destructive
  if (DELETE.has(name)) return verdict('destructive', 'delete', `${name} deletes or truncates files`, paths);
  if (name === 'mv') return verdict('destructive', 'move', 'mv moves or overwrites files', paths);
  if (OWNERSHIP.has(name))
    return verdict('destructive', 'permissions', `${name} changes file permissions or owners`, paths);
  if (name === 'sed') {
    const sed = sedVerdict(args);
    if (sed) return sed;
  }
  if (name === 'perl' && perlInPlace(args))
    return verdict('destructive', 'in_place_edit', 'perl -i edits files in place');
  if (name === 'find') {
    const find = findVerdict(args);
    if (find.level === 'destructive') return find;
  }
  if (KILL.has(name)) return verdict('destructive', 'kill', `${name} stops processes`);

  // network_write
  const install = packageManagerVerdict(name, args);
  if (install) return install;
  const network = networkVerdict(name, args);
  if (network) return network;

  // read_only, except for the options of read-only commands that run a program, write files or set the clock
  const unsafe = unsafeReadOption(name, args, parsed);
  if (unsafe) return unsafe;
  if (READ_COMMANDS.has(name)) {
    const extra = readCommandExtras(name, args, parsed, paths);
    if (extra) return extra;
    return verdict('read_only', 'read_command', `${name} only reads or prints`, paths);
  }
  if (name === 'env' || name === 'xargs' || name === 'time')
    return verdict('read_only', 'read_command', `${name} only prints`);
  if (name === 'command' && args.some((word) => word.value === '-v' || word.value === '-V')) {
    return verdict('read_only', 'read_command', 'command -v looks a name up');
  }
  if (name === 'exec' && args.length === 0)
    return verdict('read_only', 'read_command', 'exec only sets up redirections');
  if (name === 'cd' || name === 'pushd' || name === 'popd') return directoryVerdict(name, parsed);
  if (name === 'grep' || name === 'egrep' || name === 'fgrep' || name === 'rg') return grepVerdict(name, args);
  if (name === 'find') return findVerdict(args);
  if (args.length === 1 && ['--version', '-V', '--help'].includes(args[0]?.value ?? '')) {
    return verdict('read_only', 'version_query', `${name} prints its version or help`);
  }

  // write
  if (name === 'cp' && (hasOption(parsed, '-s', '--symbolic-link') || hasShortLetter(parsed, 's'))) {
    return verdict('unclassified', 'copy_links', 'cp -s makes symbolic links whose targets depend on where they land');
  }
  if (name === 'cp' || name === 'ln') {
    const uses = await copyPaths(name, parsed, context);
    const options = operandPaths(name, { ...parsed, positionals: [] }).filter((use) => !use.write);
    return verdict('write', 'file_write', `${name} creates or copies files`, [...uses, ...options]);
  }
  if (name === 'mkdir' || name === 'touch') {
    return verdict(
      'write',
      'file_write',
      `${name} creates or copies files`,
      paths.map((use) => ({ ...use, write: true })),
    );
  }
  if (name === 'tee') {
    const append = hasOption(parsed, '-a', '--append') || hasShortLetter(parsed, 'a');
    return verdict(
      'write',
      'file_write',
      'tee writes files',
      parsed.positionals.map((word) => ({ word, write: true, truncates: !append })),
    );
  }
  const build = buildVerdict(name, args);
  if (build) return build;

  if (name === 'sed')
    return verdict('unclassified', 'sed_script', 'sed with a script that may write or run commands', sedPaths(args));
  if (CODE_RUNNERS.test(name)) return verdict('unclassified', 'code_execution', `${name} runs arbitrary code`);
  return verdict('unclassified', 'unclassified', `${name} is not a classified command`);
}

/** `rm -rf .`, `rm -rf *` (in W), `rm -rf "$PWD"`, `rm -r ../` from a subdirectory: the workspace root itself. */
async function targetsWorkspaceRoot(parsed: ParsedArguments, context: CommandContext): Promise<boolean> {
  for (const word of parsed.positionals) {
    if (word.value === undefined) continue;
    const resolution = await context.resolve(word);
    if (resolution.kind !== 'inside' || resolution.rel !== '.') continue;
    if (resolution.globRest === undefined) return true;
    if (ROOT_GLOBS.has(resolution.globRest)) return true;
  }
  return false;
}
