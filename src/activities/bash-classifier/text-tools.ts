// Node: sed, perl, find, grep/rg and jq, whose arguments mix a program text (a script, a pattern, a filter, find
// primaries) with paths: which words are paths, and which spellings edit in place or run other programs.
import {
  FIND_MUTATING,
  FIND_PATH_PRIMARIES,
  GREP_WITH_VALUE,
  JQ_TWO_VALUES,
  JQ_WITH_VALUE,
  RG_WITH_VALUE,
  SED_HARMLESS,
  SED_WITH_VALUE,
} from './command-tables.js';
import type { CommandVerdict, PathUse } from './verdict.js';
import { readPaths, verdict } from './verdict.js';
import type { ShellWord } from './words.js';
import { hasOption, hasShortLetter, isOptionWord, splitShellArguments } from './words.js';

export function sedPaths(args: readonly ShellWord[]): PathUse[] {
  const parsed = splitShellArguments(args, { withValue: SED_WITH_VALUE });
  const scriptGiven = hasOption(parsed, '-e', '--expression', '-f', '--file');
  const files = scriptGiven ? parsed.positionals : parsed.positionals.slice(1);
  const scriptFiles = parsed.options.filter(
    (option) => (option.name === '-f' || option.name === '--file') && option.value,
  );
  return [...readPaths(files), ...scriptFiles.map((option) => ({ word: option.value as ShellWord }))];
}

/** `sed -i` in any spelling (`-i`, `-i.bak`, `-ni`, `--in-place`) is destructive; `sed -n Np` is read-only. */
export function sedVerdict(args: readonly ShellWord[]): CommandVerdict | undefined {
  const parsed = splitShellArguments(args, { withValue: SED_WITH_VALUE });
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

export function perlInPlace(args: readonly ShellWord[]): boolean {
  for (const word of args) {
    const value = word.value;
    if (value === undefined || value === '--' || !value.startsWith('-')) return false;
    // Switches before -i that take no attached argument; -e/-M/-I/... end the cluster.
    if (/^-[aAcnpsStTuUwWX]*i/.test(value)) return true;
    if (value === '-e' || value === '-E') return false;
  }
  return false;
}

export function findVerdict(args: readonly ShellWord[]): CommandVerdict {
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

export function grepVerdict(name: string, args: readonly ShellWord[]): CommandVerdict {
  const rg = name === 'rg';
  const parsed = splitShellArguments(args, { withValue: rg ? RG_WITH_VALUE : GREP_WITH_VALUE });
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

export function jqPaths(args: readonly ShellWord[]): PathUse[] {
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
