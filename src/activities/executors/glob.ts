// Node: Glob executor (docs/tools.md §11.4): workspace-relative paths of the regular files under `path` matching
// `pattern`.
import { stat } from 'node:fs/promises';
import { okEnvelope } from '../../protocol/envelope.js';
import { glob } from '../../tools/glob.js';
import { contextWithPath } from '../files/common.js';
import { fileSystemErrorEnvelope } from '../files/errors.js';
import { checkGlobPattern, compileGlob } from '../search/glob-pattern.js';
import { IGNORED_DIRECTORY_NAMES, loadRootGitignore } from '../search/ignore-rules.js';
import { searchLimits, startSearch } from '../search/search-start.js';
import type { SearchLimits } from '../search/search-start.js';
import { walkFiles } from '../search/walk.js';
import type { WalkStop } from '../search/walk.js';
import type { ExecutorContext, ToolExecutor } from './types.js';

/** Builds a Glob executor with the given traversal limits. */
export function createGlobExecutor(limits: SearchLimits = {}): ToolExecutor {
  const { maxEntries, timeoutMs } = searchLimits(limits);
  return async (executor) => {
    const started = await startSearch(glob, executor, timeoutMs);
    if (!started.ok) return started.result;
    const { input, rel, real, exists, context, deadline, fail } = started.search;

    const checked = checkGlobPattern(input.pattern);
    if (!checked.ok) return fail('INVALID_PARAM', checked.message, { reason: 'invalid_pattern' });
    if (!exists) return fail('NOT_FOUND', `Directory '${rel}' does not exist.`);
    try {
      if (!(await stat(real)).isDirectory()) {
        return fail(
          'INVALID_PARAM',
          `'${rel}' is not a directory; set path to a directory, or use ReadFile to read it.`,
          {
            reason: 'not_a_directory',
          },
        );
      }
      const compiled = compileGlob(checked.pattern);
      const walked = await walkFiles({
        root: executor.root,
        start: real,
        startRel: rel,
        includeHidden: input.include_hidden,
        includeIgnored: input.include_ignored,
        gitignore: input.include_ignored ? undefined : await loadRootGitignore(executor.root),
        prefix: compiled.prefix,
        accept: compiled.matches,
        maxEntries,
        deadline,
        signal: executor.signal,
      });
      return { envelope: globEnvelope(executor, { ...input, rel }, walked, maxEntries) };
    } catch (error) {
      const envelope = fileSystemErrorEnvelope(error, { rel, action: 'read', context, timeMs: executor.elapsedMs() });
      if (envelope) return { envelope };
      throw error;
    }
  };
}

/** Finds files by pattern (§11.4 Glob) with the §11.4 limits. */
export const executeGlob: ToolExecutor = createGlobExecutor();

function globEnvelope(
  executor: ExecutorContext,
  input: { pattern: string; rel: string; limit: number; include_hidden: boolean; include_ignored: boolean },
  walked: { files: string[]; filesVisited: number; stopped?: WalkStop },
  maxEntries: number,
) {
  const paths = walked.files.slice(0, input.limit);
  const reasons: string[] = [];
  if (walked.files.length > input.limit) reasons.push('match_limit');
  if (walked.stopped) reasons.push(walked.stopped);
  const notes: string[] = [];
  if (reasons.includes('match_limit')) {
    notes.push(`Showing the first ${paths.length} of ${walked.files.length}; narrow the pattern or raise limit.`);
  }
  if (walked.stopped === 'scan_limit')
    notes.push(`The scan stopped after ${maxEntries} entries; results are incomplete.`);
  if (walked.stopped === 'timeout') notes.push('The scan timed out; results are incomplete.');
  if (paths.length === 0) notes.push(...missHints(input));
  return okEnvelope({
    status: reasons.length > 0 ? 'partial' : 'success',
    data: {
      paths,
      count: paths.length,
      total_matched: walked.files.length,
      truncated: reasons.length > 0,
      truncation_reasons: reasons,
    },
    text: [`Found ${paths.length} file(s) matching '${input.pattern}' in '${input.rel}'.`, ...notes].join(' '),
    stats: { time_ms: executor.elapsedMs(), files_visited: walked.filesVisited },
    context: contextWithPath(executor, input.rel),
  });
}

/** When nothing matched, says which default filter the pattern itself points at. */
function missHints(input: { pattern: string; include_hidden: boolean; include_ignored: boolean }): string[] {
  const segments = input.pattern.split('/');
  const hints: string[] = [];
  if (
    !input.include_hidden &&
    segments.some((segment) => segment.startsWith('.') && segment !== '.' && segment !== '..')
  ) {
    hints.push('Hidden names are skipped; set include_hidden=true to search them.');
  }
  if (!input.include_ignored && segments.some((segment) => IGNORED_DIRECTORY_NAMES.has(segment))) {
    hints.push('Ignored directories are skipped; set include_ignored=true to search them.');
  }
  return hints;
}
