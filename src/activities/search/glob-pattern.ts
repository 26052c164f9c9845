// Node: Glob patterns of docs/tools.md §11.4: relative, POSIX, case-sensitive; `*` and `?` stay within one segment and
// `**` spans whole directories. picomatch does the matching; this module adds the checks and the literal prefix.
import picomatch from 'picomatch';

/** A pattern accepted for matching, or why it was refused. */
export type GlobPatternCheck = { ok: true; pattern: string } | { ok: false; message: string };

/** A compiled pattern: the matcher and the directories every match must lie under. */
export interface CompiledGlob {
  /** Tests a path relative to the search directory (POSIX separators). */
  matches: (relative: string) => boolean;
  /** Literal leading directory names of the pattern, so a walk need not visit unrelated directories. */
  prefix: readonly string[];
}

/**
 * Refuses patterns that could reach outside the search directory: a leading "/" or a ".." segment. A leading "./"
 * is dropped, since models often write "./src/*.ts" for "src/*.ts".
 */
export function checkGlobPattern(pattern: string, parameter = 'pattern'): GlobPatternCheck {
  let normalized = pattern;
  while (normalized.startsWith('./')) normalized = normalized.slice(2).replace(/^\/+/, '');
  if (pattern.startsWith('/')) {
    return { ok: false, message: `${parameter} '${pattern}' must be relative to path; remove the leading '/'.` };
  }
  if (normalized.split('/').includes('..')) {
    return { ok: false, message: `${parameter} '${pattern}' must not contain a '..' segment; set path instead.` };
  }
  if (normalized === '' || normalized === '.') {
    return { ok: false, message: `${parameter} '${pattern}' matches no file; use a pattern such as '**/*'.` };
  }
  return { ok: true, pattern: normalized };
}

/**
 * Compiles a checked pattern. With `matchBasename`, a pattern without "/" is tested against each file's name, so
 * Grep's `glob: "*.ts"` filters at every depth, as ripgrep's --glob and most agents' Grep tools do. Hidden names are
 * not picomatch's business here: the traversal already decides about them, so `dot` is on.
 */
export function compileGlob(pattern: string, options: { matchBasename?: boolean } = {}): CompiledGlob {
  const basename = options.matchBasename === true && !pattern.includes('/');
  // `posix` turns "[!abc]" into a negated class (otherwise "!" is a member) and enables [[:alpha:]]-style classes.
  const matcher = picomatch(pattern, { dot: true, basename, posix: true, windows: false });
  return { matches: (relative) => matcher(relative), prefix: basename ? [] : literalPrefix(pattern) };
}

function literalPrefix(pattern: string): string[] {
  const scanned = picomatch.scan(pattern);
  // An escaped character would need unescaping to name a directory; not worth it for a shortcut.
  if (scanned.base.includes('\\')) return [];
  const segments = scanned.base.split('/').filter((segment) => segment !== '');
  // Without any glob magic the base is the whole pattern, whose last segment is the file itself.
  return scanned.isGlob ? segments : segments.slice(0, -1);
}
