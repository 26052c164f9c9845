// Node: Grep executor (docs/tools.md §11.5): lines, files or per-file counts matching a regular expression under
// `path`.
import { lstat } from 'node:fs/promises';
import path from 'node:path';
import { okEnvelope } from '../../protocol/envelope.js';
import { grep } from '../../tools/grep.js';
import { looksBinary, readHead } from '../files/binary.js';
import { contextWithPath } from '../files/common.js';
import { fileSystemErrorEnvelope } from '../files/errors.js';
import { checkGlobPattern, compileGlob } from '../search/glob-pattern.js';
import type { CompiledGlob } from '../search/glob-pattern.js';
import { compileSearchRegex } from '../search/grep-regex.js';
import { assembleGrepResult } from '../search/grep-results.js';
import type { GrepResultData } from '../search/grep-results.js';
import { dropBinaryFiles, runGrepEngine } from '../search/grep-search.js';
import type { GrepEngineOptions, GrepEngineResult } from '../search/grep-search.js';
import { loadRootGitignore } from '../search/ignore-rules.js';
import { searchLimits, startSearch } from '../search/search-start.js';
import type { SearchLimits } from '../search/search-start.js';
import { walkFiles } from '../search/walk.js';
import type { WalkStop } from '../search/walk.js';
import type { ExecutorContext, ToolExecutor } from './types.js';

/** Options of a Grep executor: traversal limits and the engine choice. */
export interface GrepExecutorOptions extends SearchLimits, GrepEngineOptions {}

/** Builds a Grep executor; `engine` forces ripgrep or the JavaScript engine (tests compare the two). */
export function createGrepExecutor(options: GrepExecutorOptions = {}): ToolExecutor {
  const { maxEntries, timeoutMs } = searchLimits(options);
  return async (executor) => {
    const started = await startSearch(grep, executor, timeoutMs);
    if (!started.ok) return started.result;
    const { input, rel, real, exists, context, deadline, fail } = started.search;

    const compiled = compileSearchRegex(input.pattern, {
      caseSensitive: input.case_sensitive,
      fixedStrings: input.fixed_strings,
    });
    if (!compiled.ok) {
      return fail(
        'INVALID_PARAM',
        `Invalid regular expression '${input.pattern}': ${compiled.message}. ` +
          'Fix the pattern, or set fixed_strings=true to search for the literal text.',
        { reason: 'invalid_regex', error: compiled.message },
      );
    }
    let filter: CompiledGlob | undefined;
    if (input.glob !== undefined) {
      const checked = checkGlobPattern(input.glob, 'glob');
      if (!checked.ok) return fail('INVALID_PARAM', checked.message, { reason: 'invalid_glob' });
      filter = compileGlob(checked.pattern, { matchBasename: true });
    }
    if (!exists) return fail('NOT_FOUND', `Path '${rel}' does not exist.`);

    try {
      const info = await lstat(real);
      if (info.isFile() && looksBinary(await readHead(real))) {
        return fail('BINARY_FILE', `'${rel}' is a binary file; Grep searches text files only.`);
      }
      if (!info.isFile() && !info.isDirectory()) {
        return fail('INVALID_PARAM', `'${rel}' is not a regular file or directory.`, { reason: 'not_regular_file' });
      }
      // A file named explicitly is searched even if hidden or ignored; the glob, if any, applies to its name.
      const fileSelected = filter === undefined || filter.matches(path.posix.basename(rel));
      const { candidates, filesVisited, stopped } = info.isDirectory()
        ? await directoryCandidates(executor, { real, rel, filter, maxEntries, deadline })
        : { candidates: fileSelected ? [rel] : [], filesVisited: 1, stopped: undefined };

      const result = await runGrepEngine(
        {
          root: executor.root,
          files: candidates,
          regex: compiled.regex,
          caseSensitive: input.case_sensitive,
          mode: input.output_mode,
          limit: input.limit,
          context: input.context,
          deadline,
          signal: executor.signal,
        },
        options,
      );
      const data = assembleGrepResult({
        hits: result.output.hits,
        mode: input.output_mode,
        limit: input.limit,
        context: input.context,
        filesSearched: candidates.length,
        timedOut: result.output.timedOut || stopped === 'timeout',
      });
      // A scan cut short by the entry limit leaves files unsearched, which the model must hear about.
      if (stopped === 'scan_limit') {
        data.truncated = true;
        data.truncation_reasons = [...data.truncation_reasons, 'scan_limit'];
      }
      const summary = { rel, mode: input.output_mode, limit: input.limit };
      return { envelope: grepEnvelope(executor, summary, data, result, filesVisited) };
    } catch (error) {
      const envelope = fileSystemErrorEnvelope(error, { rel, action: 'read', context, timeMs: executor.elapsedMs() });
      if (envelope) return { envelope };
      throw error;
    }
  };
}

/** The text files under a directory that Grep searches: the Glob traversal rules, the glob filter, no binaries. */
async function directoryCandidates(
  executor: ExecutorContext,
  options: { real: string; rel: string; filter: CompiledGlob | undefined; maxEntries: number; deadline: number },
): Promise<{ candidates: string[]; filesVisited: number; stopped?: WalkStop }> {
  const walked = await walkFiles({
    root: executor.root,
    start: options.real,
    startRel: options.rel,
    includeHidden: false,
    includeIgnored: false,
    gitignore: await loadRootGitignore(executor.root),
    prefix: options.filter?.prefix,
    accept: options.filter?.matches,
    maxEntries: options.maxEntries,
    deadline: options.deadline,
    signal: executor.signal,
  });
  const text = await dropBinaryFiles(executor.root, walked.files, {
    deadline: options.deadline,
    signal: executor.signal,
  });
  const stopped = walked.stopped ?? (text.timedOut ? 'timeout' : undefined);
  return { candidates: text.files, filesVisited: walked.filesVisited, ...(stopped ? { stopped } : {}) };
}

/** Searches file contents (§11.5 Grep): ripgrep when available, the JavaScript engine otherwise. */
export const executeGrep: ToolExecutor = createGrepExecutor();

function grepEnvelope(
  executor: ExecutorContext,
  input: { rel: string; mode: string; limit: number },
  data: GrepResultData,
  result: GrepEngineResult,
  filesVisited: number,
) {
  const fileCount =
    data.matches !== undefined
      ? new Set(data.matches.map((match) => match.file)).size
      : (data.files ?? data.counts ?? []).length;
  const summary =
    input.mode === 'files_with_matches'
      ? `Found ${data.count} file(s) with matches under '${input.rel}'.`
      : `Found ${data.count} matching line(s) in ${fileCount} file(s) under '${input.rel}'.`;
  const notes: string[] = [];
  if (data.truncation_reasons.includes('match_limit')) {
    notes.push(`More matches exist beyond limit=${input.limit}; narrow the pattern, path or glob, or raise limit.`);
  }
  if (data.truncation_reasons.includes('line_length')) notes.push('Long lines were cut.');
  if (data.truncation_reasons.includes('timeout')) notes.push('The search timed out; results are incomplete.');
  if (data.truncation_reasons.includes('scan_limit'))
    notes.push('The scan hit its entry limit; results are incomplete.');
  return okEnvelope({
    status: data.truncated ? 'partial' : 'success',
    data: {
      ...data,
      engine: result.engine,
      ...(result.fallbackReason ? { fallback_reason: result.fallbackReason } : {}),
    },
    text: [summary, ...notes].join(' '),
    stats: { time_ms: executor.elapsedMs(), files_visited: filesVisited },
    context: contextWithPath(executor, input.rel),
  });
}
