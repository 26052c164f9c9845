// `npm run bench`: side-by-side measurements of ours vs a baseline, repeated and reduced to medians within one run,
// so the ratios hold on any machine even though the absolute numbers do not. Numbers never fail the run; only a
// measurement that cannot be taken does (exit code 1). `npm run bench -- <id>…` runs only the sections named (an id,
// or the start of ids: `durable`, `grep`); the results go to docs/benchmarks.md and the chart to docs/img/.
// BENCH_QUICK=1 shrinks the durable runs to check the code, and writes to a temporary directory instead of docs/.
import { mkdir } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { benchArguments } from './arguments.js';
import { benchCliLatency } from './cli-latency.js';
import { benchCliPath } from './cli-path.js';
import { benchCheckpoints } from './checkpoints.js';
import { benchLargeArguments } from './large-arguments.js';
import { benchLiveOutput } from './live-output.js';
import { durableSections } from './durable-runs.js';
import { describeMachine, loadAverage } from './machine.js';
import type { BenchRow } from './measure.js';
import { formatMs, renderTable } from './measure.js';
import { benchGlob } from './glob.js';
import { benchGrepEngines, benchGrepTool } from './grep.js';
import { benchMemory } from './memory.js';
import { benchToolSelection } from './tool-selection.js';
import { REPORT_HEADINGS, REPORT_INTRO } from './report-layout.js';
import type { SectionReport } from './report.js';
import { writeReport } from './report.js';
import type { Section } from './section.js';
import { selectSections } from './section.js';
import { createSourceCopy, removeSourceCopy } from './workspace.js';

const GREP_REPETITIONS = 5;
const GLOB_REPETITIONS = 25;
const LARGE_TREE_COPIES = 8;
const LARGE_TREE_REPETITIONS = 3;

async function benchGrepEnginesOnLargeTree(): Promise<BenchRow> {
  const root = await createSourceCopy(LARGE_TREE_COPIES);
  try {
    return await benchGrepEngines(root, `${LARGE_TREE_COPIES}× src/`, LARGE_TREE_REPETITIONS);
  } finally {
    await removeSourceCopy(root);
  }
}

const repositoryRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const quick = process.env.BENCH_QUICK === '1';

async function main(): Promise<number> {
  const started = performance.now();
  const loadBefore = loadAverage();
  const root = await createSourceCopy();
  const durable = durableSections({ quick, log: (line) => process.stderr.write(`[temporal] ${line}\n`) });
  // The short in-process sections run first, on a heap the search sections have not yet filled; the durable runs,
  // which start a Temporal server and a worker in this process, come last.
  const all: Section[] = [
    {
      id: 'cli-latency',
      name: 'CLI latency',
      run: () => benchCliLatency({ quick, log: (line) => process.stderr.write(`[cli] ${line}\n`) }),
    },
    {
      id: 'cli-path',
      name: 'durable-agent run as users meet it',
      run: () => benchCliPath({ quick, log: (line) => process.stderr.write(`[cli] ${line}\n`) }),
    },
    {
      id: 'live-output',
      name: 'Live output',
      run: () => benchLiveOutput({ quick, log: (line) => process.stderr.write(`[live] ${line}\n`) }),
    },
    { id: 'glob', name: 'Glob', run: () => benchGlob(root, GLOB_REPETITIONS) },
    { id: 'arguments', name: 'Argument repair', run: benchArguments },
    { id: 'tool-selection', name: 'Tool selection (200 tools, 50 tasks)', run: benchToolSelection },
    {
      id: 'large-arguments',
      name: 'A 1 MB argument, layer by layer',
      run: () => benchLargeArguments({ quick, log: (line) => process.stderr.write(`[temporal] ${line}\n`) }),
    },
    { id: 'grep-tool', name: 'Grep tool', run: () => benchGrepTool(root, 'src/ copy', GREP_REPETITIONS) },
    { id: 'grep-engines', name: 'Grep engines', run: () => benchGrepEngines(root, 'src/ copy', GREP_REPETITIONS) },
    // On a tree as small as src/, starting rg costs about as much as searching; a bigger tree shows the trend.
    { id: 'grep-large', name: 'Grep engines (large tree)', run: benchGrepEnginesOnLargeTree },
    { id: 'memory', name: 'Bash memory', run: benchMemory },
    { id: 'checkpoints', name: 'Workspace checkpoints', run: () => benchCheckpoints({ quick }) },
    ...durable.sections,
  ];
  const { selected: sections, unknown } = selectSections(all, process.argv.slice(2));
  if (unknown.length > 0) {
    await removeSourceCopy(root);
    process.stderr.write(
      `unknown section ${unknown.join(', ')}; sections: ${all.map((section) => section.id).join(', ')}\n`,
    );
    return 2;
  }
  const output = quick ? path.join(os.tmpdir(), 'durable-agent-bench-quick') : path.join(repositoryRoot, 'docs');
  const chartFile = path.join(output, 'img', 'bench-durable-runs.png');
  const machine = describeMachine();
  const rows: BenchRow[] = [];
  const reports: SectionReport[] = [];
  const failures: string[] = [];
  let chart: string | undefined;
  try {
    for (const section of sections) {
      const sectionStarted = performance.now();
      const sectionLoad = loadAverage();
      process.stderr.write(`running ${section.name}… `);
      const report = { id: section.id, name: section.name, machine, loadBefore: sectionLoad };
      try {
        const result = await section.run();
        const sectionRows = Array.isArray(result) ? result : [result];
        rows.push(...sectionRows);
        reports.push({
          ...report,
          rows: sectionRows,
          loadAfter: loadAverage(),
          finishedAt: new Date(),
          ms: performance.now() - sectionStarted,
        });
        process.stderr.write(`${formatMs(performance.now() - sectionStarted)}\n`);
      } catch (error) {
        process.stderr.write('failed\n');
        const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
        reports.push({
          ...report,
          rows: [],
          error: message,
          loadAfter: loadAverage(),
          finishedAt: new Date(),
          ms: performance.now() - sectionStarted,
        });
        failures.push(`${section.name}: ${message}`);
      }
    }
  } finally {
    await removeSourceCopy(root);
    await mkdir(path.dirname(chartFile), { recursive: true });
    chart = await durable.finish(chartFile).catch((error: unknown) => {
      failures.push(`chart: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
      return undefined;
    });
  }
  const reportFile = path.join(output, 'benchmarks.md');
  await writeReport(
    reportFile,
    { order: all.map((section) => section.id), intro: REPORT_INTRO, headings: REPORT_HEADINGS },
    reports,
  );

  process.stdout.write(`\n${renderTable(rows)}\n\n`);
  const total = formatMs(performance.now() - started);
  process.stdout.write(
    [
      "ours/baseline: below 1 means ours is faster or smaller. Times are sums over the cases of each case's median.",
      'per-run range: lowest and highest ours/baseline of single paired runs (one pass over every case, or one',
      `child process each), i.e. the noise around the median. Total ${total}.`,
      '',
    ].join('\n'),
  );
  // Other work on the machine moves absolute times and, less so, the ratios; the load says how much to trust them.
  process.stdout.write(`load average before: ${loadBefore}, after: ${loadAverage()} (${os.cpus().length} CPUs)\n`);
  process.stdout.write(
    `wrote ${path.relative(process.cwd(), reportFile)}${chart ? ` and ${path.relative(process.cwd(), chart)}` : ''}\n`,
  );
  for (const failure of failures) process.stderr.write(`\nerror in ${failure}\n`);
  return failures.length === 0 ? 0 : 1;
}

// Exits once the report is written: a service a section started and did not stop (esbuild's, for the worker processes'
// entry) would otherwise keep the process alive.
process.exit(await main());
