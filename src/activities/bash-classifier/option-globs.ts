// Node: words in option positions that may turn into options when the command runs: a glob that can expand to a
// name starting with `-` (a file named `--pre=sh` makes `rg x *` run programs), or a word only known at run time.
import { readdir } from 'node:fs/promises';
import type { Scope } from './scope.js';
import type { SegmentDraft } from './segment-draft.js';
import type { ShellWord } from './words.js';

/** Programs with no option that runs a program or writes a file, whatever a glob expands to. */
const OPTION_SAFE = new Set(['echo', 'true', 'false', ':', 'test', '[']);

/**
 * Globs in option positions (before `--`; `find` takes no `--`) that can expand to a name starting with `-`: a file
 * named `--pre=sh` makes `rg x *` run programs. Judged on the files there now when that is all it depends on.
 */
export async function checkOptionGlobs(
  name: string,
  args: readonly ShellWord[],
  draft: SegmentDraft,
  scope: Scope,
): Promise<void> {
  if (OPTION_SAFE.has(name)) return;
  const end = name === 'find' ? -1 : args.findIndex((word) => word.value === '--');
  for (const word of end === -1 ? args : args.slice(0, end)) {
    if (!word.glob || word.value === undefined) continue;
    const risk = optionGlobRisk(word.value);
    if (risk === 'none') continue;
    const shown = `${word.text} can expand to an option of ${name}`;
    if (risk === 'option') {
      draft.raise('unclassified', 'option_like_glob', `${shown} (its expansion starts with '-')`);
      continue;
    }
    const dashed = scope.cwd === undefined ? undefined : await dashedEntry(scope.cwd);
    if (dashed === undefined)
      draft.raise('unclassified', 'option_like_glob', `${shown} (the directory cannot be listed)`);
    else if (dashed !== null)
      draft.raise('unclassified', 'option_like_glob', `${shown} (the file '${dashed}' is here)`);
    else if (scope.repeats)
      draft.raise('unclassified', 'option_like_glob', `${shown} (it repeats, and files may appear in between)`);
    else draft.expansionJudged ??= shown;
  }
}

/**
 * A word only known at run time in an option position (`read X < f; rg $X .`) may be `--pre=sh` as much as a glob
 * may: it asks. After `--` it is an operand; `printf` takes options only before its format.
 */
export function checkDynamicOptions(name: string, args: readonly ShellWord[], draft: SegmentDraft): void {
  if (OPTION_SAFE.has(name)) return;
  const end = name === 'find' ? -1 : args.findIndex((word) => word.value === '--');
  const positions = name === 'printf' ? args.slice(0, 1) : end === -1 ? args : args.slice(0, end);
  const dynamic = positions.find((word) => word.value === undefined);
  if (dynamic) {
    draft.raise(
      'unclassified',
      'dynamic_option',
      `${dynamic.text} is only known at run time and may be an option of ${name}`,
    );
  }
}

/**
 * Whether a glob's expansion can start with `-`: `option` when it certainly does (a brace alternative starts with `-`), `files` when only the files it matches decide (`*`, `?`, `[!a]`, `[+--]`), `none` otherwise.
 */
export function optionGlobRisk(pattern: string): 'option' | 'files' | 'none' {
  const first = pattern[0];
  // Already an option as written; a file whose name it matches (`--p*` → `--pre=sh`) would make it another one.
  if (first === '-') return 'files';
  if (first === '*' || first === '?') return 'files';
  if (first === '[') {
    const close = pattern.indexOf(']', pattern[1] === '!' || pattern[1] === '^' ? 3 : 2);
    if (close === -1) return 'none';
    const body = pattern.slice(1, close);
    return body.startsWith('!') || body.startsWith('^') || body.includes('-') ? 'files' : 'none';
  }
  if (first === '{') {
    const group = braceGroup(pattern);
    if (group === undefined) return 'none';
    if (group.sequence !== undefined) {
      return /^(\d+\.\.\d+|[a-zA-Z]\.\.[a-zA-Z])(\.\.\d+)?$/.test(group.sequence) ? 'none' : 'option';
    }
    let worst: 'option' | 'files' | 'none' = 'none';
    for (const alternative of group.alternatives) {
      // Brace expansion makes words, not patterns: an alternative that starts with `-` is an option, files or not.
      if ((alternative + group.rest).startsWith('-')) return 'option';
      const risk = optionGlobRisk(alternative + group.rest);
      if (risk === 'option') return 'option';
      if (risk === 'files') worst = 'files';
    }
    return worst;
  }
  return 'none';
}

/** The leading `{a,b}` (or `{1..3}`) of a word: its alternatives and what follows; undefined when it is literal. */
function braceGroup(pattern: string): { alternatives: string[]; sequence?: string; rest: string } | undefined {
  let depth = 0;
  let start = 1;
  const alternatives: string[] = [];
  for (let index = 0; index < pattern.length; index++) {
    const char = pattern[index];
    if (char === '\\') {
      index++;
      continue;
    }
    if (char === '{') depth++;
    else if (char === '}') {
      depth--;
      if (depth === 0) {
        const rest = pattern.slice(index + 1);
        const last = pattern.slice(start, index);
        if (alternatives.length === 0)
          return last.includes('..') ? { alternatives: [], sequence: last, rest } : undefined;
        return { alternatives: [...alternatives, last], rest };
      }
    } else if (char === ',' && depth === 1) {
      alternatives.push(pattern.slice(start, index));
      start = index + 1;
    }
  }
  return undefined;
}

/** The first entry of `directory` whose name starts with `-`; null when there is none, undefined when unreadable. */
async function dashedEntry(directory: string): Promise<string | null | undefined> {
  try {
    const names = await readdir(directory);
    return names.find((entry) => entry.startsWith('-')) ?? null;
  } catch {
    return undefined;
  }
}
