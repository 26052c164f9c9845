// Node: which paths a checkpoint leaves out: what the .gitignore files from the root down to a directory list, each
// relative to its own directory as git reads them, then the defaults and the run's own patterns, which have the last
// word (`.git/` stays out whatever a .gitignore says; a run's `!node_modules/` brings node_modules back).
import ignore from 'ignore';
import type { Ignore } from 'ignore';

/** Never checkpointed: git's own data, installed packages, and `.agent/`, where runs spill their outputs. */
export const DEFAULT_CHECKPOINT_IGNORE: readonly string[] = ['.git/', 'node_modules/', '.agent/'];

// The ignore package remembers the answer for every path it is asked about; a matcher asked this many questions is
// rebuilt, so a long-lived one does not keep the names of files long gone.
const QUESTIONS_PER_MATCHER = 100_000;

/** The rules in force in one directory. Immutable: equal rules are the same object from one checkpoint to the next. */
export interface IgnoreRules {
  /** Whether a workspace-relative path ('/' separators) is left out; directories are matched with a trailing '/'. */
  ignores(relative: string, isDirectory: boolean): boolean;
  /** The rules below `directory` (workspace-relative, '' for the root), given the text of its .gitignore. */
  withGitignore(directory: string, text: string): IgnoreRules;
}

/** The rules at the workspace root: the defaults, then `extra` (gitignore syntax, relative to the root). */
export function checkpointIgnoreRules(extra: readonly string[] = []): IgnoreRules {
  return rulesOf([], [...DEFAULT_CHECKPOINT_IGNORE, ...extra]);
}

/**
 * Every .gitignore's patterns rewritten relative to the root go into one matcher, the deeper files' after the
 * shallower ones', so the last matching pattern decides as git's precedence does, and a path under a directory that
 * is left out is left out too, as git never looks inside such a directory.
 */
function rulesOf(gitignored: readonly string[], fixed: readonly string[]): IgnoreRules {
  const matcher = new Matcher([...gitignored, ...fixed]);
  return {
    ignores: (relative, isDirectory) => matcher.ignores(isDirectory ? `${relative}/` : relative),
    withGitignore: (directory, text) => rulesOf([...gitignored, ...rootRelative(directory, text)], fixed),
  };
}

/** The patterns of `directory`'s .gitignore as patterns of a .gitignore at the root. */
function rootRelative(directory: string, text: string): string[] {
  const patterns: string[] = [];
  for (const line of text.split(/\r?\n/)) {
    if (line.trim() === '' || line.startsWith('#')) continue;
    if (directory === '') {
      patterns.push(line);
      continue;
    }
    const negated = line.startsWith('!');
    const body = negated ? line.slice(1) : line;
    // git: a slash at the start or in the middle anchors the pattern to the .gitignore's directory; without one it
    // matches at any depth below it.
    const anchored = body.replace(/\/$/, '').includes('/');
    const rebased = anchored ? `${literal(directory)}/${body.replace(/^\//, '')}` : `${literal(directory)}/**/${body}`;
    patterns.push(negated ? `!${rebased}` : rebased);
  }
  return patterns;
}

/** A directory path as a pattern that matches only itself. */
function literal(directory: string): string {
  return directory.replace(/[\\*?[\]]/g, '\\$&').replace(/^[!#]/, '\\$&');
}

class Matcher {
  private matcher: Ignore;
  private questions = 0;

  constructor(private readonly patterns: readonly string[]) {
    this.matcher = Matcher.build(patterns);
  }

  ignores(relative: string): boolean {
    if (++this.questions > QUESTIONS_PER_MATCHER) {
      this.matcher = Matcher.build(this.patterns);
      this.questions = 1;
    }
    return this.matcher.ignores(relative);
  }

  // Case-sensitive, as git is on Linux; names such as "..." are matched, not refused as non-relative paths.
  private static build(patterns: readonly string[]): Ignore {
    return ignore({ ignorecase: false, allowRelativePaths: true }).add(patterns);
  }
}
