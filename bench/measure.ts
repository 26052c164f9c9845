// Timing, statistics and the result table shared by the benchmark sections.
import { performance } from 'node:perf_hooks';

/** One line of the result table: a measurement of ours against its baseline, with the ratio ours / baseline. */
export interface BenchRow {
  measurement: string;
  ours: string;
  baseline: string;
  /** Median of ours / median of the baseline; below 1 means ours is smaller (faster, leaner). */
  ratio: number;
  /** Lowest and highest ratio of a single repetition (ours and baseline run back to back): the noise. */
  ratioRange: readonly [number, number];
  conclusion: string;
}

/** The median of a non-empty list. */
export function median(values: readonly number[]): number {
  if (values.length === 0) throw new Error('median of an empty list');
  const sorted = [...values].sort((left, right) => left - right);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** Lowest and highest of `ours[i] / baseline[i]` over paired measurements. */
export function pairedRange(ours: readonly number[], baseline: readonly number[]): [number, number] {
  const ratios = ours.map((value, index) => value / baseline[index]!);
  return [Math.min(...ratios), Math.max(...ratios)];
}

/** What a run returns that times itself: the part it measured, without the setup and checks around it. */
export class SelfTimed {
  constructor(readonly ms: number) {}
}

/** Milliseconds one call of `run` takes (or, for a run that returns SelfTimed, what it measured). */
export async function timeMs(run: () => unknown): Promise<number> {
  const started = performance.now();
  const result = await run();
  return result instanceof SelfTimed ? result.ms : performance.now() - started;
}

/** How often compareTimes runs the cases. */
export interface CompareOptions {
  repetitions: number;
  /** Untimed passes first, so the JIT has compiled both sides' hot paths (default 1). */
  warmups?: number;
}

/** Milliseconds of each side (sum of per-case medians), the pass ratio range, and the first warm-up pass's results. */
export interface Comparison<O, B> {
  ours: number;
  baseline: number;
  ratio: number;
  ratioRange: [number, number];
  oursResults: O[];
  baselineResults: B[];
}

/**
 * Times ours and the baseline over the same list of cases, `repetitions` times, after untimed warm-up passes whose
 * first results are returned (so callers can check both sides agree without another run). Each case runs on both
 * sides back to back, in alternating order, so a burst of other load on the machine hits both sides alike. A side's
 * figure is the sum over the cases of each case's median time; the range is that of whole passes, paired.
 */
export async function compareTimes<C, O, B>(
  cases: readonly C[],
  ours: (testCase: C) => Promise<O> | O,
  baseline: (testCase: C) => Promise<B> | B,
  options: CompareOptions,
): Promise<Comparison<O, B>> {
  const { repetitions, warmups = 1 } = options;
  const oursResults: O[] = [];
  const baselineResults: B[] = [];
  for (const testCase of cases) {
    oursResults.push(await ours(testCase));
    baselineResults.push(await baseline(testCase));
  }
  for (let warmup = 1; warmup < warmups; warmup++) {
    for (const testCase of cases) {
      await ours(testCase);
      await baseline(testCase);
    }
  }
  // times[case][repetition]
  const oursTimes: number[][] = cases.map(() => []);
  const baselineTimes: number[][] = cases.map(() => []);
  for (let repetition = 0; repetition < repetitions; repetition++) {
    for (const [index, testCase] of cases.entries()) {
      if ((index + repetition) % 2 === 0) {
        oursTimes[index]!.push(await timeMs(() => ours(testCase)));
        baselineTimes[index]!.push(await timeMs(() => baseline(testCase)));
      } else {
        baselineTimes[index]!.push(await timeMs(() => baseline(testCase)));
        oursTimes[index]!.push(await timeMs(() => ours(testCase)));
      }
    }
  }
  // Each case's median, summed: a GC pause or a burst of load in one repetition of one case is discarded.
  const sumOfMedians = (times: number[][]): number => times.reduce((total, caseTimes) => total + median(caseTimes), 0);
  const passTotals = (times: number[][]): number[] =>
    Array.from({ length: repetitions }, (_, repetition) =>
      times.reduce((total, caseTimes) => total + caseTimes[repetition]!, 0),
    );
  const oursMedian = sumOfMedians(oursTimes);
  const baselineMedian = sumOfMedians(baselineTimes);
  return {
    ours: oursMedian,
    baseline: baselineMedian,
    ratio: oursMedian / baselineMedian,
    ratioRange: pairedRange(passTotals(oursTimes), passTotals(baselineTimes)),
    oursResults,
    baselineResults,
  };
}

/** How many positions of two equally long lists hold equal values (compared as JSON). */
export function countIdentical(left: readonly unknown[], right: readonly unknown[]): number {
  return left.filter((value, index) => JSON.stringify(value) === JSON.stringify(right[index])).length;
}

// Repeated runs on a shared 2-core machine differ by several percent; closer than this is not a difference.
const PAR_BAND = 0.1;

/** "X is 1.5× as fast as Y", "X takes 1.5× Y's time" or "X and Y are on par", from a time ratio X / Y. */
export function speedVerdict(ratio: number, ours: string, baseline: string): string {
  if (Math.abs(ratio - 1) <= PAR_BAND) return `${ours} and ${baseline} are on par (within ${PAR_BAND * 100}%)`;
  return ratio < 1
    ? `${ours} is ${(1 / ratio).toFixed(2)}× as fast as ${baseline}`
    : `${ours} takes ${ratio.toFixed(2)}× ${baseline}'s time`;
}

/** A duration with a unit suited to its size. */
export function formatMs(milliseconds: number): string {
  if (milliseconds < 1) return `${(milliseconds * 1000).toFixed(1)} µs`;
  if (milliseconds < 1000) return `${milliseconds.toFixed(1)} ms`;
  return `${(milliseconds / 1000).toFixed(2)} s`;
}

/** A byte count in MiB. */
export function formatMiB(bytes: number): string {
  return `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
}

/** A ratio as "0.42×". */
export function formatRatio(ratio: number): string {
  if (!Number.isFinite(ratio)) return 'n/a';
  return `${ratio < 10 ? ratio.toFixed(2) : ratio.toFixed(1)}×`;
}

/** The rows as an aligned table followed by one conclusion line per row. */
export function renderTable(rows: readonly BenchRow[]): string {
  const header = ['measurement', 'ours', 'baseline', 'ours/baseline', 'per-run range'];
  const cells = rows.map((row) => [
    row.measurement,
    row.ours,
    row.baseline,
    formatRatio(row.ratio),
    `${formatRatio(row.ratioRange[0])}–${formatRatio(row.ratioRange[1])}`,
  ]);
  const widths = header.map((title, column) => Math.max(title.length, ...cells.map((line) => line[column]!.length)));
  const line = (values: readonly string[]): string =>
    values
      .map((value, column) => (column === 0 ? value.padEnd(widths[column]!) : value.padStart(widths[column]!)))
      .join('  ');
  const rule = widths.map((width) => '─'.repeat(width)).join('  ');
  const conclusions = rows.map((row) => `• ${row.measurement}: ${row.conclusion}`);
  return [line(header), rule, ...cells.map(line), '', ...conclusions].join('\n');
}
