// Node: what one classification carries from segment to segment: the options every segment shares, and the shell
// state (working directory, directory stack) a statement runs in.
import type { FileWritePolicy } from '../../core/permissions/types.js';

/** What every segment of one classification shares. */
export interface ClassifierOptions {
  /** The real (symlink-resolved) workspace root. */
  root: string;
  home: string;
  policy: FileWritePolicy;
  /** Rules of command-form `write` rows that are auto-allowed. */
  bashWriteAutoAllow: ReadonlySet<string>;
}

/** The shell state a statement runs in. */
export interface Scope {
  /** Working directory (absolute, real); undefined once it cannot be known statically. */
  cwd: string | undefined;
  previous: string | undefined;
  stack: (string | undefined)[];
  /** Inside a loop or function body, where a directory change repeats an unknown number of times. */
  repeats: boolean;
}

/** A fresh scope at `cwd`. */
export function initialScope(cwd: string): Scope {
  return { cwd, previous: undefined, stack: [], repeats: false };
}

/** A copy of `scope` for a subshell, pipeline element or background job, whose directory changes stay inside it. */
export function cloneScope(scope: Scope, repeats = scope.repeats): Scope {
  return { cwd: scope.cwd, previous: scope.previous, stack: [...scope.stack], repeats };
}
