// Glob: our executor (through runTool) vs tinyglobby, the reference library, with options matching the docs/tools.md
// §11.4 rules.
import { glob as tinyglobby } from 'tinyglobby';
import { createGlobExecutor } from '../src/activities/executors/glob.js';
import { IGNORED_DIRECTORY_NAMES } from '../src/activities/search/ignore-rules.js';
import type { BenchRow } from './measure.js';
import { compareTimes, countIdentical, formatMs, speedVerdict } from './measure.js';
import { callTool } from './workspace.js';

interface GlobCase {
  pattern: string;
  path?: string;
}

const GLOB_CASES: readonly GlobCase[] = [
  { pattern: '**/*.ts' },
  { pattern: '*' },
  { pattern: '**' },
  { pattern: '**/*' },
  { pattern: 'src/*.ts' },
  { pattern: 'src/**/*.ts' },
  { pattern: 'src/**' },
  { pattern: '**/index.ts' },
  { pattern: '**/executors/*.ts' },
  { pattern: 'src/*/*.ts' },
  { pattern: 'src/**/read-*.ts' },
  { pattern: '**/*-*.ts' },
  { pattern: '**/?????.ts' },
  { pattern: '**/[a-c]*.ts' },
  { pattern: '**/[!a-m]*.ts' },
  { pattern: '**/*.{ts,js,md}' },
  { pattern: '**/*.TS' },
  { pattern: 'src/protocol/envelope.ts' },
  { pattern: '**/+(index|types).ts' },
  { pattern: '**/*.json' },
  { pattern: '*.ts', path: 'src/core' },
  { pattern: '**/*.ts', path: 'src/activities' },
];

// The options the reference test uses to make tinyglobby follow §11: no hidden names, the ignored directories
// skipped, symlinks not followed, files only. The bench tree has no .gitignore and no hidden files.
async function referenceGlob(root: string, input: GlobCase): Promise<string[]> {
  const base = input.path === undefined ? '' : `${input.path}/`;
  const found = await tinyglobby([`${base}${input.pattern}`], {
    cwd: root,
    dot: false,
    ignore: [...IGNORED_DIRECTORY_NAMES].map((name) => `**/${name}/**/*`),
    onlyFiles: true,
    followSymbolicLinks: false,
    expandDirectories: false,
    caseSensitiveMatch: true,
  });
  return found.sort();
}

// Large enough that no result is spilled: tinyglobby returns every path too.
const UNCAPPED = Number.MAX_SAFE_INTEGER;

/** Glob through runTool vs tinyglobby, every pattern once per repetition. */
export async function benchGlob(root: string, repetitions: number): Promise<BenchRow> {
  const executor = createGlobExecutor();
  const ours = async (input: GlobCase): Promise<string[]> => {
    const envelope = await callTool(
      'Glob',
      executor,
      root,
      { ...input, limit: 1000 },
      {
        maxToolResultBytes: UNCAPPED,
      },
    );
    return envelope.data.paths as string[];
  };
  const times = await compareTimes(GLOB_CASES, ours, (input) => referenceGlob(root, input), {
    repetitions,
    warmups: 3,
  });
  const identical = countIdentical(times.oursResults, times.baselineResults);
  const verdict = speedVerdict(times.ratio, 'our Glob', 'tinyglobby');
  return {
    measurement: `Glob, ${GLOB_CASES.length} patterns: ours vs tinyglobby`,
    ours: formatMs(times.ours),
    baseline: formatMs(times.baseline),
    ratio: times.ratio,
    ratioRange: times.ratioRange,
    conclusion:
      `${verdict} (runTool's envelope work included); ` + `same paths on ${identical}/${GLOB_CASES.length} patterns.`,
  };
}
