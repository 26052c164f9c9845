// Runs one memory measurement in its own process: the Bash executor or a naive fully-buffering execa call on a
// command with a large stdout. Prints one JSON line with the process's peak RSS increase and the wall time.
//
// Usage: node --import tsx bench/memory-child.ts <ours|baseline> <workspace> <command>
import { execa } from 'execa';
import { performance } from 'node:perf_hooks';
import { abbreviateParams } from '../src/protocol/envelope.js';
import { createBashExecutor } from '../src/activities/executors/bash.js';
import { runTool } from '../src/activities/run-tool.js';

/** What the child reports to the parent. */
export interface MemorySample {
  mode: 'ours' | 'baseline';
  /** Peak RSS of this process minus its RSS just before the command started, in bytes. */
  peakIncreaseBytes: number;
  /** Largest RSS seen by the 50 ms sampler minus the starting RSS, in bytes (a cross-check of the kernel's peak). */
  sampledIncreaseBytes: number;
  wallMs: number;
  /** Bytes the command wrote to stdout, as each side saw them. */
  stdoutBytes: number;
}

const SAMPLE_INTERVAL_MS = 50;

async function runOurs(workspace: string, command: string): Promise<number> {
  const input = { command, timeout_ms: 120_000 };
  const result = await runTool('Bash', createBashExecutor({ kind: 'off' }), {
    taskId: 'bench-memory',
    turn: 1,
    index: 0,
    callId: 'bench_bash',
    workspace,
    input,
    paramsInput: abbreviateParams(input),
  });
  const { envelope } = result;
  if (envelope.status === 'error') throw new Error(`Bash failed: ${envelope.error?.message ?? 'unknown error'}`);
  return envelope.stats.stdout_bytes as number;
}

async function runBaseline(command: string): Promise<number> {
  const result = await execa('bash', ['-c', command], { maxBuffer: Infinity });
  return Buffer.byteLength(result.stdout) + 1; // execa strips the final newline
}

async function main(): Promise<void> {
  const [mode, workspace, command] = process.argv.slice(2);
  if ((mode !== 'ours' && mode !== 'baseline') || workspace === undefined || command === undefined) {
    throw new Error('usage: memory-child.ts <ours|baseline> <workspace> <command>');
  }
  // ru_maxrss (what /usr/bin/time -v reports as "Maximum resident set size") never decreases, so the increase is
  // measured against this process's own RSS once its modules are loaded, which is also its peak so far.
  const startRss = Math.max(process.memoryUsage().rss, process.resourceUsage().maxRSS * 1024);
  let sampledPeak = startRss;
  const sampler = setInterval(() => {
    sampledPeak = Math.max(sampledPeak, process.memoryUsage().rss);
  }, SAMPLE_INTERVAL_MS);
  const started = performance.now();
  const stdoutBytes = mode === 'ours' ? await runOurs(workspace, command) : await runBaseline(command);
  const wallMs = performance.now() - started;
  clearInterval(sampler);
  sampledPeak = Math.max(sampledPeak, process.memoryUsage().rss);
  const sample: MemorySample = {
    mode,
    peakIncreaseBytes: process.resourceUsage().maxRSS * 1024 - startRss,
    sampledIncreaseBytes: sampledPeak - startRss,
    wallMs,
    stdoutBytes,
  };
  process.stdout.write(`${JSON.stringify(sample)}\n`);
}

await main();
