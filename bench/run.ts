// `npm run bench`: side-by-side measurements of ours vs a baseline, repeated and reduced to medians within one run,
// so the ratios hold on any machine even though the absolute numbers do not. Numbers never fail the run; only a
// measurement that cannot be taken does (exit code 1).
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { benchArguments } from './arguments.js';
import type { BenchRow } from './measure.js';
import { formatMs, renderTable } from './measure.js';
import { benchGlob } from './glob.js';
import { benchGrepEngines, benchGrepTool } from './grep.js';
import { benchMemory } from './memory.js';
import { createSourceCopy, removeSourceCopy } from './workspace.js';

const GREP_REPETITIONS = 5;
const GLOB_REPETITIONS = 25;
const LARGE_TREE_COPIES = 8;
const LARGE_TREE_REPETITIONS = 3;

interface Section {
  name: string;
  run(): Promise<BenchRow | BenchRow[]>;
}

async function benchGrepEnginesOnLargeTree(): Promise<BenchRow> {
  const root = await createSourceCopy(LARGE_TREE_COPIES);
  try {
    return await benchGrepEngines(root, `${LARGE_TREE_COPIES}× src/`, LARGE_TREE_REPETITIONS);
  } finally {
    await removeSourceCopy(root);
  }
}

function loadAverage(): string {
  return os
    .loadavg()
    .map((load) => load.toFixed(2))
    .join(' ');
}

async function main(): Promise<number> {
  const started = performance.now();
  const loadBefore = loadAverage();
  const root = await createSourceCopy();
  // The short in-process sections run first, on a heap the search sections have not yet filled.
  const sections: Section[] = [
    { name: 'Glob', run: () => benchGlob(root, GLOB_REPETITIONS) },
    { name: 'Argument repair', run: benchArguments },
    { name: 'Grep tool', run: () => benchGrepTool(root, 'src/ copy', GREP_REPETITIONS) },
    { name: 'Grep engines', run: () => benchGrepEngines(root, 'src/ copy', GREP_REPETITIONS) },
    // On a tree as small as src/, starting rg costs about as much as searching; a bigger tree shows the trend.
    { name: 'Grep engines (large tree)', run: benchGrepEnginesOnLargeTree },
    { name: 'Bash memory', run: benchMemory },
  ];
  const rows: BenchRow[] = [];
  const failures: string[] = [];
  try {
    for (const section of sections) {
      const sectionStarted = performance.now();
      process.stderr.write(`running ${section.name}… `);
      try {
        const result = await section.run();
        rows.push(...(Array.isArray(result) ? result : [result]));
        process.stderr.write(`${formatMs(performance.now() - sectionStarted)}\n`);
      } catch (error) {
        process.stderr.write('failed\n');
        failures.push(`${section.name}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
      }
    }
  } finally {
    await removeSourceCopy(root);
  }

  process.stdout.write(`\n${renderTable(rows)}\n\n`);
  const total = formatMs(performance.now() - started);
  process.stdout.write(
    [
      'ours/baseline: below 1 means ours is faster or smaller. Times are sums over the cases of each case\'s median.',
      'per-run range: lowest and highest ours/baseline of single paired runs (one pass over every case, or one',
      `child process each), i.e. the noise around the median. Total ${total}.`,
      '',
    ].join('\n'),
  );
  // Other work on the machine moves absolute times and, less so, the ratios; the load says how much to trust them.
  process.stdout.write(`load average before: ${loadBefore}, after: ${loadAverage()} (${os.cpus().length} CPUs)\n`);
  for (const failure of failures) process.stderr.write(`\nerror in ${failure}\n`);
  return failures.length === 0 ? 0 : 1;
}

process.exitCode = await main();
