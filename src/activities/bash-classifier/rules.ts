// Node: the level table of C.5.2 for one simple command, row by row (the first matching row wins), together with
// the arguments each command must keep inside the workspace. Wrappers are already peeled off (wrappers.ts).
import { gitVerdict } from './git.js';
import { isInteractiveSsh, moduleArgument, networkVerdict, packageManagerVerdict } from './network.js';
import type { CommandContext, CommandVerdict, PathUse } from './verdict.js';
import { DANGEROUS_VARIABLE, overrideReason, readPaths, verdict } from './verdict.js';
import type { ParsedArguments, ShellWord } from './words.js';
import {
  hasOption,
  hasShortLetter,
  isOptionWord,
  literalWord,
  optionMatches,
  optionName,
  parseArguments,
} from './words.js';

const PRIVILEGE = new Set(['sudo', 'su', 'doas', 'pkexec', 'run0']);
const DISK = new Set(['mkfs', 'fdisk', 'sfdisk', 'parted', 'wipefs']);
const POWER = new Set(['shutdown', 'reboot', 'poweroff', 'halt']);
/** Interpreters and tools whose arguments are programs: unclassified, with a reason that says so. */
const CODE_RUNNERS = /^(python(\d+(\.\d+)?)?|node|nodejs|deno|perl|ruby|php|awk|gawk|mawk|nawk|lua|Rscript|osascript)$/;
const INTERACTIVE = new Set([
  'vim',
  'vi',
  'nvim',
  'nano',
  'emacs',
  'less',
  'more',
  'top',
  'htop',
  'watch',
  'tmux',
  'screen',
  'telnet',
  'ftp',
  'sftp',
]);
const REPL = /^(python(\d+(\.\d+)?)?|node|nodejs)$/;
const DELETE = new Set(['rm', 'rmdir', 'shred', 'unlink', 'truncate']);
const OWNERSHIP = new Set(['chmod', 'chown', 'chgrp']);
const KILL = new Set(['kill', 'pkill', 'killall']);
const FIND_MUTATING = new Set([
  '-delete',
  '-exec',
  '-execdir',
  '-ok',
  '-okdir',
  '-fprint',
  '-fprint0',
  '-fprintf',
  '-fls',
]);
const SHELLS = new Set(['sh', 'bash', 'zsh', 'dash', 'ksh']);

/** Commands that only read or print (the table's read-only list, plus shell builtins that only test or set variables). */
const READ_COMMANDS = new Set([
  'pwd',
  'ls',
  'cat',
  'head',
  'tail',
  'wc',
  'stat',
  'file',
  'du',
  'df',
  'tree',
  'echo',
  'printf',
  'true',
  'false',
  'sleep',
  'date',
  'whoami',
  'id',
  'uname',
  'which',
  'type',
  'printenv',
  'basename',
  'dirname',
  'realpath',
  'readlink',
  'sort',
  'uniq',
  'cut',
  'tr',
  'nl',
  'rev',
  'seq',
  'diff',
  'cmp',
  'md5sum',
  'sha1sum',
  'sha256sum',
  'jq',
  ':',
  'test',
  '[',
  'set',
  'exit',
  'return',
  'wait',
  'read',
  'shift',
  'break',
  'continue',
  'let',
  'getopts',
]);

/**
 * Commands whose operands are all paths (C.5.2 list, plus the read-only commands that open files the same way:
 * tree nl rev uniq cut md5sum sha1sum sha256sum).
 */
const PATH_OPERAND_COMMANDS = new Set([
  'cd',
  'pushd',
  'rm',
  'rmdir',
  'mv',
  'cp',
  'ln',
  'mkdir',
  'touch',
  'chmod',
  'chown',
  'chgrp',
  'truncate',
  'tee',
  'shred',
  'unlink',
  'cat',
  'head',
  'tail',
  'ls',
  'stat',
  'wc',
  'file',
  'du',
  'sort',
  'diff',
  'cmp',
  'tree',
  'nl',
  'rev',
  'uniq',
  'cut',
  'md5sum',
  'sha1sum',
  'sha256sum',
]);

/** Options that take a value, per command, so the value is not mistaken for an operand. */
const VALUE_OPTIONS: Record<string, readonly string[]> = {
  cut: ['-d', '-f', '-b', '-c', '--delimiter', '--fields', '--bytes', '--characters', '--output-delimiter'],
  sort: [
    '-k',
    '-t',
    '-S',
    '-T',
    '-o',
    '--key',
    '--field-separator',
    '--buffer-size',
    '--temporary-directory',
    '--output',
    '--parallel',
    '--batch-size',
  ],
  head: ['-n', '-c', '--lines', '--bytes'],
  tail: ['-n', '-c', '--lines', '--bytes', '-s', '--sleep-interval', '--pid'],
  stat: ['-c', '--format', '--printf'],
  du: ['-d', '--max-depth', '-B', '--block-size', '-t', '--threshold', '--exclude', '-X', '--exclude-from'],
  ls: [
    '-I',
    '--ignore',
    '-w',
    '--width',
    '-T',
    '--tabsize',
    '--hide',
    '--block-size',
    '--time-style',
    '--format',
    '--sort',
    '--quoting-style',
    '--indicator-style',
    '--time',
  ],
  truncate: ['-s', '--size', '-r', '--reference'],
  mkdir: ['-m', '--mode', '--context'],
  touch: ['-d', '--date', '-t', '-r', '--reference'],
  cp: ['-t', '--target-directory', '-S', '--suffix'],
  mv: ['-t', '--target-directory', '-S', '--suffix'],
  ln: ['-t', '--target-directory', '-S', '--suffix'],
  chmod: ['--reference'],
  chown: ['--from', '--reference'],
  chgrp: ['--reference'],
  wc: ['--files0-from'],
  diff: [
    '-I',
    '--ignore-matching-lines',
    '-U',
    '-C',
    '--unified',
    '--context',
    '-W',
    '--width',
    '--label',
    '-L',
    '-x',
    '-X',
    '--exclude',
    '--exclude-from',
  ],
  nl: ['-b', '-d', '-f', '-h', '-i', '-l', '-n', '-s', '-v', '-w'],
  uniq: ['-f', '-s', '-w'],
  tree: ['-L', '-P', '-I', '-o', '--filelimit', '-H', '-T', '--charset', '--sort', '--timefmt'],
  cmp: ['-i', '-n', '--bytes', '--ignore-initial'],
  shred: ['-n', '-s', '--iterations', '--size', '--random-source'],
  file: ['-m', '-f', '-F', '-e', '-P', '--magic-file', '--files-from', '--separator'],
};

/** Option values that are paths the command reads (or writes, for the `write` ones). */
const PATH_VALUE_OPTIONS: Record<string, { reads?: readonly string[]; writes?: readonly string[] }> = {
  cp: { writes: ['-t', '--target-directory'] },
  mv: { writes: ['-t', '--target-directory'] },
  ln: { writes: ['-t', '--target-directory'] },
  touch: { reads: ['-r', '--reference'] },
  truncate: { reads: ['-r', '--reference'] },
  chmod: { reads: ['--reference'] },
  chown: { reads: ['--reference'] },
  chgrp: { reads: ['--reference'] },
  wc: { reads: ['--files0-from'] },
  du: { reads: ['-X', '--exclude-from'] },
  diff: { reads: ['-X', '--exclude-from'] },
  file: { reads: ['-m', '-f', '--magic-file', '--files-from'] },
  shred: { reads: ['--random-source'] },
  sort: { reads: ['-T', '--temporary-directory'], writes: ['-o', '--output'] },
  tree: { writes: ['-o'] },
};

const GREP_WITH_VALUE = [
  '-e',
  '-f',
  '-m',
  '-A',
  '-B',
  '-C',
  '-d',
  '-D',
  '--regexp',
  '--file',
  '--max-count',
  '--after-context',
  '--before-context',
  '--context',
  '--directories',
  '--devices',
  '--label',
  '--include',
  '--exclude',
  '--exclude-dir',
  '--exclude-from',
  '--color',
  '--colour',
  '--binary-files',
  '--group-separator',
];
const RG_WITH_VALUE = [
  '-e',
  '-f',
  '-g',
  '-t',
  '-T',
  '-m',
  '-A',
  '-B',
  '-C',
  '-j',
  '-M',
  '-E',
  '-r',
  '-d',
  '--regexp',
  '--file',
  '--glob',
  '--iglob',
  '--type',
  '--type-not',
  '--type-add',
  '--type-clear',
  '--max-count',
  '--after-context',
  '--before-context',
  '--context',
  '--threads',
  '--max-columns',
  '--encoding',
  '--replace',
  '--max-depth',
  '--maxdepth',
  '--max-filesize',
  '--ignore-file',
  '--path-separator',
  '--colors',
  '--color',
  '--sort',
  '--sortr',
  '--context-separator',
  '--field-match-separator',
  '--field-context-separator',
  '--dfa-size-limit',
  '--regex-size-limit',
  '--engine',
  '--pre',
  '--pre-glob',
  '--hostname-bin',
  '--hyperlink-format',
];
const SED_WITH_VALUE = ['-e', '-f', '-l', '--expression', '--file', '--line-length'];
const SED_HARMLESS = new Set([
  '-n',
  '--quiet',
  '--silent',
  '-e',
  '--expression',
  '-E',
  '-r',
  '--regexp-extended',
  '-s',
  '--separate',
  '-u',
  '--unbuffered',
  '-z',
  '--null-data',
  '--posix',
  '--sandbox',
]);
const JQ_WITH_VALUE = ['--indent', '-L', '--tab-size'];
const JQ_TWO_VALUES = new Set(['--arg', '--argjson', '--slurpfile', '--rawfile']);
const FIND_PATH_PRIMARIES = new Set([
  '-newer',
  '-anewer',
  '-cnewer',
  '-samefile',
  '-fprint',
  '-fprint0',
  '-fls',
  '-files0-from',
]);

const BUILD_TOOLS = new Set(['tsc', 'jest', 'vitest', 'pytest', 'make', 'gradle', 'mvn']);
const JS_MANAGERS = new Set(['npm', 'pnpm', 'yarn', 'bun']);
const JS_SCRIPT_COMMANDS = new Set(['test', 't', 'tst', 'run', 'run-script']);
const CARGO_BUILD = new Set(['build', 'test', 'check', 'clippy', 'fmt']);
const GO_BUILD = new Set(['test', 'build', 'vet']);
const ROOT_GLOBS = new Set(['*', '.*', '**', '*/', '.[!.]*', '.[^.]*', '.??*', '..?*', '{*,.*}', '{.*,*}']);

/** The table's reason for interactive programs. */
const INTERACTIVE_REASON = 'interactive';

function operands(name: string, args: readonly ShellWord[]): ParsedArguments {
  return parseArguments(args, { withValue: VALUE_OPTIONS[name] ?? [], plusOptions: name === 'chmod' });
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

/**
 * What `cp` and `ln` write: the destination, or, when it is a directory (an existing one, or `-t DIR`), the name each
 * source gets in it (`dir/<basename>`), so `cp x/.git .` is judged as writing `.git`. Sources are read, except link
 * targets: a link makes whatever it points at writable through it, so they are judged as write targets too, and a
 * symbolic one is resolved from the directory the link is made in (`ln -s ../../x sub/dir/link`), unless `-r`.
 */
async function copyPaths(name: 'cp' | 'ln', parsed: ParsedArguments, context: CommandContext): Promise<PathUse[]> {
  const targetOption = parsed.options.find(
    (option) => option.value !== undefined && optionMatches(option, ['-t', '--target-directory']),
  )?.value;
  const noTargetDirectory = hasOption(parsed, '-T', '--no-target-directory') || hasShortLetter(parsed, 'T');
  const symbolic =
    name === 'ln' &&
    (hasOption(parsed, '-s', '--symbolic') || hasShortLetter(parsed, 's')) &&
    !(hasOption(parsed, '-r', '--relative') || hasShortLetter(parsed, 'r'));
  const link = name === 'ln';
  const sources = [...parsed.positionals];
  let destination = targetOption;
  if (destination === undefined && (sources.length >= 2 || !link)) destination = sources.pop();
  const uses: PathUse[] = [];
  let intoDirectory = targetOption !== undefined;
  if (destination !== undefined && !intoDirectory && !noTargetDirectory) {
    const resolution = await context.resolve(destination);
    intoDirectory =
      sources.length > 1 ||
      sources.some((source) => source.glob) ||
      (resolution.kind === 'inside' && resolution.exists && resolution.directory);
  }
  // `ln -s target` alone makes the link in the working directory.
  const directory = destination ?? literalWord('.');
  for (const source of sources) {
    const linkFrom = symbolic
      ? { linkFrom: { word: directory, directory: intoDirectory || destination === undefined } }
      : {};
    // A copy's source that is protected asks as before (it spreads a secret); a link's target is written through it.
    uses.push({ word: source, write: true, ...(link ? {} : { glob: 'source' as const }), ...linkFrom });
    if (intoDirectory || destination === undefined)
      uses.push({ word: entryIn(directory, source), write: true, glob: 'entry' });
  }
  if (destination !== undefined) uses.push({ word: destination, write: true });
  return uses;
}

/** The path `source` gets inside directory `directory` (`dir/<basename of source>`), as a shell word. */
function entryIn(directory: ShellWord, source: ShellWord): ShellWord {
  const base = source.value?.replace(/\/+$/, '').split('/').pop();
  const value = directory.value === undefined || base === undefined ? undefined : `${directory.value}/${base}`;
  return { text: `${directory.text}/${source.text}`, value, glob: directory.glob || source.glob, start: source.start };
}

/** True when the command's operands are paths, so operands appended by `xargs` cannot be checked. */
export function takesPathOperands(name: string): boolean {
  return PATH_OPERAND_COMMANDS.has(name) || ['grep', 'egrep', 'fgrep', 'rg', 'find', 'sed', 'jq'].includes(name);
}

/** The classification of one simple command (C.5.2 level table); `name` is the basename of the command word. */
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

/** Options of read-only commands that run a program of the caller's choosing. */
const PROGRAM_OPTIONS: Record<string, readonly string[]> = {
  sort: ['--compress-program'],
};

/**
 * A read-only command used in a way that is not: an option that runs a program (`sort --compress-program=sh`, also
 * abbreviated), writes files everywhere (`tree -R`), sets the clock (`date -s`), or a builtin that sets a variable which
 * changes what later commands run (`read PATH`, `printf -v PATH`, `getopts o PATH`, `let PATH=1`).
 */
function unsafeReadOption(
  name: string,
  args: readonly ShellWord[],
  parsed: ParsedArguments,
): CommandVerdict | undefined {
  const programs = PROGRAM_OPTIONS[name];
  const program = programs ? parsed.options.find((option) => optionMatches(option, programs)) : undefined;
  if (program) return verdict('unclassified', 'runs_program', `${name} ${program.name} runs another program`);
  if (name === 'tree' && (hasOption(parsed, '-R') || hasShortLetter(parsed, 'R')))
    return verdict('unclassified', 'writes_everywhere', 'tree -R writes a file into every directory');
  if (name === 'date' && (hasOption(parsed, '-s', '--set') || hasShortLetter(parsed, 's')))
    return verdict('unclassified', 'sets_clock', 'date -s sets the system clock');
  const variables = assignedVariables(name, args);
  const dangerous = variables.find((variable) => variable === undefined || DANGEROUS_VARIABLE.test(variable));
  if (variables.length > 0 && (dangerous !== undefined || variables.includes(undefined))) {
    return verdict(
      'unclassified',
      'environment_override',
      dangerous === undefined
        ? `${name} sets a variable only known at run time`
        : overrideReason(dangerous, 'later commands'),
    );
  }
  return undefined;
}

/** The variables a builtin assigns (undefined for one only known at run time). */
function assignedVariables(name: string, args: readonly ShellWord[]): (string | undefined)[] {
  switch (name) {
    case 'read': {
      const parsed = parseArguments(args, { withValue: ['-a', '-d', '-i', '-n', '-N', '-p', '-t', '-u'] });
      const arrays = parsed.options
        .filter((option) => optionName(option) === '-a')
        .map((option) => option.value?.value);
      return [...arrays, ...parsed.positionals.map((word) => word.value)];
    }
    case 'printf': {
      const parsed = parseArguments(args, { withValue: ['-v'], stopAtFirstPositional: true });
      return parsed.options.filter((option) => optionName(option) === '-v').map((option) => option.value?.value);
    }
    case 'getopts':
      return args.slice(1, 2).map((word) => word.value);
    case 'let':
      return args.map((word) => (word.value === undefined ? undefined : /^\s*([A-Za-z_]\w*)/.exec(word.value)?.[1]));
    default:
      return [];
  }
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

/** `sh|bash|zsh|dash -c <script>`: the script is classified recursively; a shell reading a pipe runs whatever arrives. */
function shellVerdict(name: string, args: readonly ShellWord[], context: CommandContext): CommandVerdict | undefined {
  if (!SHELLS.has(name)) return undefined;
  let command = false;
  let index = 0;
  for (; index < args.length; index++) {
    const value = args[index]?.value;
    if (value === undefined) break;
    if (value === '--') {
      index++;
      break;
    }
    if (value === '-o' || value === '+o' || value === '-O' || value === '+O') {
      index++;
      continue;
    }
    if (/^-[A-Za-z]+$/.test(value)) {
      if (value.includes('c')) command = true;
      continue;
    }
    if (value.startsWith('--') || /^\+[A-Za-z]+$/.test(value)) continue;
    break;
  }
  const operand = args[index];
  if (command) {
    if (operand?.value === undefined)
      return verdict('unclassified', 'dynamic_script', `${name} -c with a script only known at run time`);
    return { ...verdict('read_only', 'shell_c', `${name} -c runs its script`), script: operand.value };
  }
  if (operand === undefined) {
    if (context.piped) return verdict('forbidden', 'pipe_to_shell', `piping into ${name} runs whatever arrives`);
    return verdict('unclassified', 'shell_stdin', `${name} runs commands from its input`);
  }
  return verdict('unclassified', 'shell_script', `${name} runs a script file`, readPaths([operand]));
}

function sedPaths(args: readonly ShellWord[]): PathUse[] {
  const parsed = parseArguments(args, { withValue: SED_WITH_VALUE });
  const scriptGiven = hasOption(parsed, '-e', '--expression', '-f', '--file');
  const files = scriptGiven ? parsed.positionals : parsed.positionals.slice(1);
  const scriptFiles = parsed.options.filter(
    (option) => (option.name === '-f' || option.name === '--file') && option.value,
  );
  return [...readPaths(files), ...scriptFiles.map((option) => ({ word: option.value as ShellWord }))];
}

/** `sed -i` in any spelling (`-i`, `-i.bak`, `-ni`, `--in-place`) is destructive; `sed -n Np` is read-only. */
function sedVerdict(args: readonly ShellWord[]): CommandVerdict | undefined {
  const parsed = parseArguments(args, { withValue: SED_WITH_VALUE });
  const inPlace = parsed.options.some((option) => option.name === '--in-place' || /^-[^-]*i/.test(option.name));
  const paths = sedPaths(args);
  if (inPlace)
    return verdict(
      'destructive',
      'in_place_edit',
      'sed -i edits files in place (bypassing the read-before-write check)',
      paths,
    );
  const quiet = hasOption(parsed, '-n', '--quiet', '--silent');
  const harmless = parsed.options.every((option) => SED_HARMLESS.has(option.name));
  const scripts = parsed.options
    .filter((option) => option.name === '-e' || option.name === '--expression')
    .map((option) => option.value?.value);
  const script = scripts.length > 0 ? (scripts.length === 1 ? scripts[0] : undefined) : parsed.positionals[0]?.value;
  if (quiet && harmless && script !== undefined && /^\d+(,\d+)?p$/.test(script)) {
    return verdict('read_only', 'sed_print', 'sed -n prints lines', paths);
  }
  return undefined;
}

function perlInPlace(args: readonly ShellWord[]): boolean {
  for (const word of args) {
    const value = word.value;
    if (value === undefined || value === '--' || !value.startsWith('-')) return false;
    // Switches before -i that take no attached argument; -e/-M/-I/... end the cluster.
    if (/^-[aAcnpsStTuUwWX]*i/.test(value)) return true;
    if (value === '-e' || value === '-E') return false;
  }
  return false;
}

function findVerdict(args: readonly ShellWord[]): CommandVerdict {
  let index = 0;
  while (index < args.length) {
    const value = args[index]?.value;
    if (value === '-H' || value === '-L' || value === '-P' || value?.startsWith('-O') === true) index++;
    else if (value === '-D') index += 2;
    else break;
  }
  const starts: ShellWord[] = [];
  for (; index < args.length; index++) {
    const value = args[index]?.value;
    if (
      value !== undefined &&
      (value.startsWith('-') || value === '(' || value === '!' || value === ')' || value === ',')
    )
      break;
    starts.push(args[index] as ShellWord);
  }
  const paths: PathUse[] = readPaths(starts);
  let mutating: string | undefined;
  for (; index < args.length; index++) {
    const value = args[index]?.value;
    if (value === undefined) continue;
    if (FIND_MUTATING.has(value)) mutating ??= value;
    if (FIND_PATH_PRIMARIES.has(value) && args[index + 1]) {
      paths.push({ word: args[index + 1] as ShellWord, write: value.startsWith('-fprint') || value === '-fls' });
    }
  }
  if (mutating)
    return verdict('destructive', 'find_mutation', `find ${mutating} changes files or runs commands`, paths);
  return verdict('read_only', 'find', 'find only lists files', paths);
}

function grepVerdict(name: string, args: readonly ShellWord[]): CommandVerdict {
  const rg = name === 'rg';
  const parsed = parseArguments(args, { withValue: rg ? RG_WITH_VALUE : GREP_WITH_VALUE });
  const patternGiven =
    hasOption(parsed, '-e', '--regexp', '-f', '--file') || (rg && hasOption(parsed, '--files', '--type-list'));
  const paths = readPaths(patternGiven ? parsed.positionals : parsed.positionals.slice(1));
  for (const option of parsed.options) {
    if (['-f', '--file', '--exclude-from', '--ignore-file'].includes(option.name) && option.value)
      paths.push({ word: option.value });
  }
  if (rg && (hasOption(parsed, '--pre', '--hostname-bin', '-z', '--search-zip') || hasShortLetter(parsed, 'z'))) {
    return verdict('unclassified', 'rg_preprocessor', 'rg --pre/--search-zip runs other programs', paths);
  }
  return verdict('read_only', 'search', `${name} only reads`, paths);
}

function directoryVerdict(name: 'cd' | 'pushd' | 'popd', parsed: ParsedArguments): CommandVerdict {
  if (name === 'popd')
    return {
      ...verdict('read_only', 'cd_inside', 'popd returns to an earlier directory'),
      directoryChange: { command: 'popd' },
    };
  const target = parsed.positionals[0];
  // `cd -` goes back to the previous directory, which the walker tracks; it is not a path operand.
  const checked = target && target.value !== '-' ? [{ word: target }] : [];
  const base = verdict('read_only', 'cd_inside', `${name} into a directory inside the workspace`, checked);
  return { ...base, directoryChange: { command: name, ...(target ? { target } : {}) } };
}

/** The read-only commands that can still write (`sort -o`, `uniq in out`, `tree -o`) or read through a filter argument. */
function readCommandExtras(
  name: string,
  args: readonly ShellWord[],
  parsed: ParsedArguments,
  paths: PathUse[],
): CommandVerdict | undefined {
  if (name === 'uniq' && parsed.positionals.length >= 2) {
    const [input, output] = parsed.positionals as [ShellWord, ShellWord];
    return verdict('write', 'file_write', 'uniq writes its output file', [
      { word: input },
      { word: output, write: true, truncates: true },
    ]);
  }
  if (paths.some((use) => use.write)) {
    return verdict(
      'write',
      'file_write',
      `${name} writes its output file`,
      paths.map((use) => (use.write ? { ...use, truncates: true } : use)),
    );
  }
  if (name === 'jq') return verdict('read_only', 'read_command', 'jq only reads', jqPaths(args));
  return undefined;
}

function jqPaths(args: readonly ShellWord[]): PathUse[] {
  const paths: PathUse[] = [];
  const positionals: ShellWord[] = [];
  let filterFromFile = false;
  for (let index = 0; index < args.length; index++) {
    const word = args[index] as ShellWord;
    const value = word.value;
    if (value === '--args' || value === '--jsonargs') break;
    if (value !== undefined && JQ_TWO_VALUES.has(value)) {
      if ((value === '--slurpfile' || value === '--rawfile') && args[index + 2])
        paths.push({ word: args[index + 2] as ShellWord });
      index += 2;
      continue;
    }
    if (value !== undefined && JQ_WITH_VALUE.includes(value)) {
      index++;
      continue;
    }
    if (value === '-f' || value === '--from-file') {
      filterFromFile = true;
      continue;
    }
    if (isOptionWord(word)) continue;
    positionals.push(word);
  }
  return [...paths, ...readPaths(filterFromFile ? positionals : positionals.slice(1))];
}

/** Build and test runners (auto-allowed `write` by default). */
function buildVerdict(name: string, args: readonly ShellWord[]): CommandVerdict | undefined {
  const build = (reason: string): CommandVerdict => verdict('write', 'build_test', reason);
  const first = parseArguments(args, { stopAtFirstPositional: true }).positionals[0]?.value;
  if (BUILD_TOOLS.has(name)) return build(`${name} builds or tests the project`);
  if (JS_MANAGERS.has(name) && first !== undefined && JS_SCRIPT_COMMANDS.has(first))
    return build(`${name} ${first} runs a project script`);
  if (name === 'npx' && first === 'tsc') return build('npx tsc type-checks the project');
  if (name === 'go' && first !== undefined && GO_BUILD.has(first))
    return build(`go ${first} builds or tests the project`);
  if (name === 'cargo' && first !== undefined && CARGO_BUILD.has(first))
    return build(`cargo ${first} builds or tests the project`);
  if (REPL.test(name) && name.startsWith('python') && moduleArgument(args)?.name === 'pytest')
    return build('pytest runs the tests');
  return undefined;
}
