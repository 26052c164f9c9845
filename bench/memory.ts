// Memory of a command with ~200 MB of stdout: the Bash executor (10 MiB kept per stream, the rest counted and
// dropped) vs a naive execa call that buffers everything. Each measurement runs in a fresh child process, so one
// side's heap growth cannot hide in, or inflate, the other's.
import { execa } from 'execa';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { MemorySample } from './memory-child.js';
import type { BenchRow } from './measure.js';
import { formatMiB, formatMs, median, pairedRange, speedVerdict } from './measure.js';

const REPETITIONS = 3;
/** About 214 MB of stdout; seq is read-only and exists everywhere bash does. */
const COMMAND = 'seq 1 25000000';
/** About twice as much, run once through ours only: bounded memory must not grow with it. */
const DOUBLE_COMMAND = 'seq 1 50000000';

const benchDirectory = path.dirname(fileURLToPath(import.meta.url));
const repositoryRoot = path.resolve(benchDirectory, '..');

async function measure(mode: MemorySample['mode'], workspace: string, command = COMMAND): Promise<MemorySample> {
  const child = await execa(
    process.execPath,
    ['--import', 'tsx', path.join(benchDirectory, 'memory-child.ts'), mode, workspace, command],
    { cwd: repositoryRoot, reject: false },
  );
  if (child.exitCode !== 0) throw new Error(`memory child (${mode}) failed: ${child.stderr || child.stdout}`);
  const lastLine = child.stdout.trim().split('\n').at(-1) ?? '';
  return JSON.parse(lastLine) as MemorySample;
}

/** Peak RSS increase and wall time of ours vs the naive baseline, medians of REPETITIONS child processes each. */
export async function benchMemory(): Promise<BenchRow[]> {
  const workspace = await mkdtemp(path.join(os.tmpdir(), 'durable-agent-bench-bash-'));
  try {
    const ours: MemorySample[] = [];
    const baseline: MemorySample[] = [];
    for (let repetition = 0; repetition < REPETITIONS; repetition++) {
      // Alternating the order keeps the page cache and CPU frequency from favouring one side.
      if (repetition % 2 === 0) {
        ours.push(await measure('ours', workspace));
        baseline.push(await measure('baseline', workspace));
      } else {
        baseline.push(await measure('baseline', workspace));
        ours.push(await measure('ours', workspace));
      }
    }
    const double = await measure('ours', workspace, DOUBLE_COMMAND);
    const field = (samples: MemorySample[], key: 'peakIncreaseBytes' | 'sampledIncreaseBytes' | 'wallMs') =>
      samples.map((sample) => sample[key]);
    const outputMB = (median(ours.map((sample) => sample.stdoutBytes)) / 1e6).toFixed(0);
    const oursPeak = median(field(ours, 'peakIncreaseBytes'));
    const baselinePeak = median(field(baseline, 'peakIncreaseBytes'));
    const oursWall = median(field(ours, 'wallMs'));
    const baselineWall = median(field(baseline, 'wallMs'));
    const oursSampled = formatMiB(median(field(ours, 'sampledIncreaseBytes')));
    const baselineSampled = formatMiB(median(field(baseline, 'sampledIncreaseBytes')));
    const memoryRatio = oursPeak / baselinePeak;
    const wallRatio = oursWall / baselineWall;
    return [
      {
        measurement: `Bash ${outputMB} MB stdout: peak RSS increase`,
        ours: formatMiB(oursPeak),
        baseline: formatMiB(baselinePeak),
        ratio: memoryRatio,
        ratioRange: pairedRange(field(ours, 'peakIncreaseBytes'), field(baseline, 'peakIncreaseBytes')),
        conclusion:
          `${(1 / memoryRatio).toFixed(1)}× less peak RSS (50 ms sampler: ${oursSampled} vs ${baselineSampled}), ` +
          `and bounded rather than proportional: with ${(double.stdoutBytes / 1e6).toFixed(0)} MB of output ours ` +
          `peaks at ${formatMiB(double.peakIncreaseBytes)} (10 MiB capture per stream, its decoded text, the spill ` +
          'file, GC slack).',
      },
      {
        measurement: `Bash ${outputMB} MB stdout: wall time`,
        ours: formatMs(oursWall),
        baseline: formatMs(baselineWall),
        ratio: wallRatio,
        ratioRange: pairedRange(field(ours, 'wallMs'), field(baseline, 'wallMs')),
        conclusion: `${speedVerdict(wallRatio, 'bounded capture (spill file included)', 'buffering everything')}.`,
      },
    ];
  } finally {
    await rm(workspace, { recursive: true, force: true });
  }
}
