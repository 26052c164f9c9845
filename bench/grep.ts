// Grep: the ripgrep engine vs the JavaScript engine on the same patterns, twice: the whole tool call through runTool
// (traversal, binary sniffing, engine, envelope), and the engines alone on the candidate files the executor would pass.
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { createGrepExecutor } from '../src/activities/executors/grep.js';
import type { ToolExecutor } from '../src/activities/executors/types.js';
import { checkGlobPattern, compileGlob } from '../src/activities/search/glob-pattern.js';
import { compileSearchRegex } from '../src/activities/search/grep-regex.js';
import { assembleGrepResult } from '../src/activities/search/grep-results.js';
import type { GrepResultData } from '../src/activities/search/grep-results.js';
import { locateRipgrep } from '../src/activities/search/grep-rg.js';
import { dropBinaryFiles, runGrepEngine } from '../src/activities/search/grep-search.js';
import type { EngineRequest } from '../src/activities/search/grep-js.js';
import { loadRootGitignore } from '../src/activities/search/ignore-rules.js';
import { walkFiles } from '../src/activities/search/walk.js';
import { grep } from '../src/tools/grep.js';
import type { BenchRow, Comparison } from './measure.js';
import { compareTimes, countIdentical, formatMs, speedVerdict } from './measure.js';
import { callTool } from './workspace.js';

/** Patterns both engines accept; most raise the limit, so a search reads much of the tree instead of stopping early. */
export const GREP_CASES: readonly Record<string, unknown>[] = [
  { pattern: 'import' },
  { pattern: 'export function', case_sensitive: true, limit: 1000 },
  { pattern: '^import .* from', limit: 1000 },
  { pattern: ';$', limit: 1000 },
  { pattern: '\\bconst\\b', limit: 1000 },
  { pattern: '\\d{3,}', limit: 1000 },
  { pattern: '[A-Z][a-z]+Error', case_sensitive: true, limit: 1000 },
  { pattern: 'TODO|FIXME|XXX', case_sensitive: true, limit: 1000 },
  { pattern: '\\s+$', limit: 1000 },
  { pattern: '^\\s*$', output_mode: 'count', limit: 1000 },
  { pattern: 'async function \\w+\\(', context: 2, limit: 1000 },
  { pattern: 'return', context: 3, limit: 1000 },
  { pattern: 'a.b', fixed_strings: true, limit: 1000 },
  { pattern: 'interface', output_mode: 'files_with_matches', limit: 1000 },
  { pattern: 'Envelope', output_mode: 'count', limit: 1000 },
  { pattern: 'zod', glob: '*.ts', limit: 1000 },
  { pattern: 'export', path: 'src', glob: 'tools/*.ts', limit: 1000 },
  { pattern: 'type', path: 'src/core', context: 1, limit: 1000 },
  { pattern: '\\p{Lu}\\p{Ll}+', case_sensitive: true, limit: 1000 },
  { pattern: '[^\\x00-\\x7F]', limit: 1000 },
  { pattern: '.{120,}', limit: 1000 },
  { pattern: '\\w+\\.\\w+\\(', limit: 1000 },
  { pattern: '^\\}$', context: 1, limit: 1000 },
  { pattern: 'x{2}|y{2,3}', limit: 1000 },
  { pattern: 'no such text anywhere in the tree', limit: 1000 },
  { pattern: 'ExecutorContext', output_mode: 'files_with_matches', limit: 1000 },
];

// Generous, so no search stops early; it must be finite because ripgrep's runs are bounded by a timer.
const ENGINE_DEADLINE_MS = 600_000;

/** The engine request the Grep executor builds for a call: same regex, same candidate files. */
async function engineRequest(root: string, rawInput: Record<string, unknown>): Promise<EngineRequest> {
  const input = grep.inputSchema.parse(rawInput);
  const compiled = compileSearchRegex(input.pattern, {
    caseSensitive: input.case_sensitive,
    fixedStrings: input.fixed_strings,
  });
  if (!compiled.ok) throw new Error(`pattern ${input.pattern}: ${compiled.message}`);
  let filter: ReturnType<typeof compileGlob> | undefined;
  if (input.glob !== undefined) {
    const checked = checkGlobPattern(input.glob, 'glob');
    if (!checked.ok) throw new Error(checked.message);
    filter = compileGlob(checked.pattern, { matchBasename: true });
  }
  const walked = await walkFiles({
    root,
    start: path.join(root, input.path),
    startRel: input.path,
    includeHidden: false,
    includeIgnored: false,
    gitignore: await loadRootGitignore(root),
    prefix: filter?.prefix,
    accept: filter?.matches,
  });
  const text = await dropBinaryFiles(root, walked.files, { deadline: performance.now() + ENGINE_DEADLINE_MS });
  return {
    root,
    files: text.files,
    regex: compiled.regex,
    caseSensitive: input.case_sensitive,
    mode: input.output_mode,
    limit: input.limit,
    context: input.context,
    deadline: 0, // set when the search starts
  };
}

async function requireRipgrep(): Promise<void> {
  if ((await locateRipgrep()) === undefined) {
    throw new Error('ripgrep (rg) is not installed; the Grep comparison needs it');
  }
}

function row(measurement: string, times: Comparison<unknown, unknown>, scope: string): BenchRow {
  const identical = countIdentical(times.oursResults, times.baselineResults);
  const verdict = speedVerdict(times.ratio, 'the ripgrep engine', 'the JavaScript engine');
  return {
    measurement,
    ours: formatMs(times.ours),
    baseline: formatMs(times.baseline),
    ratio: times.ratio,
    ratioRange: times.ratioRange,
    conclusion: `${verdict} ${scope}; results identical on ${identical}/${GREP_CASES.length} patterns.`,
  };
}

/** The whole Grep call through runTool with `engine: "rg"` vs `engine: "js"`, every pattern once per repetition. */
export async function benchGrepTool(root: string, label: string, repetitions: number): Promise<BenchRow> {
  await requireRipgrep();
  const ripgrep = createGrepExecutor({ engine: 'rg' });
  const javaScript = createGrepExecutor({ engine: 'js' });
  const search = async (executor: ToolExecutor, input: Record<string, unknown>): Promise<unknown> => {
    // Uncapped: a result over the budget would be spilled under a per-call file name, and the two sides' answers
    // could no longer be compared. The spill would cost both engines the same.
    const envelope = await callTool('Grep', executor, root, input, { maxToolResultBytes: Number.MAX_SAFE_INTEGER });
    const { engine: _engine, ...data } = envelope.data;
    return data;
  };
  const times = await compareTimes(
    GREP_CASES,
    (input) => search(ripgrep, input),
    (input) => search(javaScript, input),
    { repetitions },
  );
  return row(
    `Grep tool, ${GREP_CASES.length} patterns, ${label}: rg vs JS`,
    times,
    'for whole tool calls (the shared traversal and binary sniffing are in both)',
  );
}

/** runGrepEngine alone, `rg` vs `js`, on the files the executor would search; every pattern once per repetition. */
export async function benchGrepEngines(root: string, label: string, repetitions: number): Promise<BenchRow> {
  await requireRipgrep();
  const requests: EngineRequest[] = [];
  for (const input of GREP_CASES) requests.push(await engineRequest(root, input));
  const fileCount = Math.max(...requests.map((request) => request.files.length));
  const search = async (engine: 'rg' | 'js', request: EngineRequest): Promise<GrepResultData> => {
    const result = await runGrepEngine({ ...request, deadline: performance.now() + ENGINE_DEADLINE_MS }, { engine });
    if (result.engine !== engine) throw new Error(`asked for the ${engine} engine, got ${result.engine}`);
    if (result.output.timedOut) throw new Error(`the ${engine} engine timed out on ${String(request.regex)}`);
    // Engines may read past what the result needs; the assembled result is what must agree, and building it is part
    // of every real call anyway.
    const { mode, limit, context, files } = request;
    const { hits } = result.output;
    return assembleGrepResult({ hits, mode, limit, context, filesSearched: files.length, timedOut: false });
  };
  const times = await compareTimes(
    requests,
    (request) => search('rg', request),
    (request) => search('js', request),
    { repetitions },
  );
  return row(`Grep engines only, ${label} (${fileCount} files)`, times, 'on the same candidate files');
}
