// Node: how `cd`, `pushd` and `popd` move the working directory the walker tracks: to a real directory inside the
// workspace or the commands' HOME, or to an unknown one (a glob, a loop, an empty stack) after which relative paths ask.
import type { PathResolution } from './paths.js';
import { resolveShellPath } from './paths.js';
import type { ClassifierOptions, Scope } from './scope.js';
import type { SegmentDraft } from './segment-draft.js';
import type { CommandVerdict } from './verdict.js';
import { literalWord } from './words.js';

/** Moves `scope` as the command's `directoryChange` says; `resolution` is its target's, already checked as a path. */
export async function changeDirectory(
  options: ClassifierOptions,
  row: CommandVerdict,
  resolution: PathResolution | undefined,
  draft: SegmentDraft,
  scope: Scope,
): Promise<void> {
  const change = row.directoryChange;
  if (!change) return;
  if (scope.repeats) {
    draft.raise(
      'unclassified',
      'cd_in_loop',
      `${change.command} inside a loop or function leaves the directory unknown`,
    );
    scope.cwd = undefined;
    return;
  }
  const from = scope.cwd;
  if (change.command === 'popd') {
    if (scope.stack.length === 0) {
      draft.raise('unclassified', 'unknown_cwd', 'popd with an empty directory stack');
      scope.cwd = undefined;
    } else scope.cwd = scope.stack.pop();
    return;
  }
  let next: string | undefined;
  if (change.target?.value === '-') {
    next = scope.previous;
    if (next === undefined)
      draft.raise('unclassified', 'unknown_cwd', `${change.command} - returns to a directory that is not known`);
  } else {
    // `cd` alone goes to $HOME, which has to pass the same boundary check.
    const resolved = resolution ?? (change.target ? undefined : await checkHome(options, draft, scope));
    // A glob names a directory only the shell knows (`cd .gi*` may enter .git): the cwd is unknown after it.
    if (change.target?.glob) next = undefined;
    else if (resolved?.kind === 'inside') next = resolved.directory ? resolved.real : from;
    else if (resolved?.kind === 'scratch') next = resolved.exists && resolved.directory ? resolved.real : undefined;
    else if (resolved?.kind === 'outside') next = undefined;
  }
  scope.previous = from;
  if (change.command === 'pushd') scope.stack.push(from);
  scope.cwd = next;
}

async function checkHome(options: ClassifierOptions, draft: SegmentDraft, scope: Scope): Promise<PathResolution> {
  const home = literalWord(options.home);
  const resolution = await resolveShellPath(options.root, scope.cwd, { ...home, glob: false }, options.home);
  if (resolution.kind === 'outside') draft.deny(options.home);
  return resolution;
}
