// Node: the read-only rows' exceptions: options that run a program, write files or set the clock, builtins that
// set a variable changing what later commands run, output files (`sort -o`, `uniq in out`), and `cd`'s target.
import { PROGRAM_OPTIONS } from './command-tables.js';
import { jqPaths } from './text-tools.js';
import type { CommandVerdict, PathUse } from './verdict.js';
import { DANGEROUS_VARIABLE, overrideReason, verdict } from './verdict.js';
import type { ParsedArguments, ShellWord } from './words.js';
import { hasOption, hasShortLetter, optionMatches, optionName, splitShellArguments } from './words.js';

/**
 * A read-only command used in a way that is not: an option that runs a program (`sort --compress-program=sh`, also
 * abbreviated), writes files everywhere (`tree -R`), sets the clock (`date -s`), or a builtin that sets a variable which
 * changes what later commands run (`read PATH`, `printf -v PATH`, `getopts o PATH`, `let PATH=1`).
 */
export function unsafeReadOption(
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
      const parsed = splitShellArguments(args, { withValue: ['-a', '-d', '-i', '-n', '-N', '-p', '-t', '-u'] });
      const arrays = parsed.options
        .filter((option) => optionName(option) === '-a')
        .map((option) => option.value?.value);
      return [...arrays, ...parsed.positionals.map((word) => word.value)];
    }
    case 'printf': {
      const parsed = splitShellArguments(args, { withValue: ['-v'], stopAtFirstPositional: true });
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

export function directoryVerdict(name: 'cd' | 'pushd' | 'popd', parsed: ParsedArguments): CommandVerdict {
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
export function readCommandExtras(
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
