// Soak: hostile model output, fuzzed, against a real Temporal dev server, a real worker and the scripted model over
// HTTP through the openai client. Generated turns (test/support/hostile-turns.ts) are played a few per run, each run
// in its own workspace; every run must complete within a bound and answer every call with a valid envelope.
// `node --import tsx soak/fuzz.ts --turns 1000 [--seed N]` runs it alone and prints the figures.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import fc from 'fast-check';
import { startDurableEnv } from '../bench/durable-env.js';
import { hostileTurnArbitrary } from '../test/support/hostile-turns.js';
import type { HostileRunOutcome } from '../test/support/hostile-runs.js';
import { playHostileRun } from '../test/support/hostile-runs.js';
import type { ScenarioOptions, ScenarioResult } from './scenario.js';

const TURNS_PER_RUN = 10;
/** Generated turns per soak round: 3 rounds make the 1,000 turns docs/reliability.md reports. */
const TURNS_PER_ROUND = 334;
const RUN_TIMEOUT_MS = 300_000;
const DEFAULT_SEED = 20_260_101;

/** The soak's fuzz scenario: TURNS_PER_ROUND generated turns a round, on its own dev server. */
export async function fuzzSoakScenario(options: ScenarioOptions): Promise<ScenarioResult> {
  return await fuzzScenario({ turns: TURNS_PER_ROUND * options.rounds });
}

/** Plays `turns` generated hostile turns in runs of TURNS_PER_RUN and reports how the runs ended. */
export async function fuzzScenario(options: { turns: number; seed?: number }): Promise<ScenarioResult> {
  const seed = options.seed ?? DEFAULT_SEED;
  const started = performance.now();
  const turns = fc.sample(hostileTurnArbitrary({ withCalls: true }), { numRuns: options.turns, seed });
  const env = await startDurableEnv((line) => process.stderr.write(`[temporal] ${line}\n`));
  const outcomes: HostileRunOutcome[] = [];
  try {
    const worker = await env.startWorker();
    for (let first = 0; first < turns.length; first += TURNS_PER_RUN) {
      const workspace = await mkdtemp(path.join(tmpdir(), 'durable-agent-fuzz-'));
      try {
        const outcome = await playHostileRun(
          async ({ script, workspace: runWorkspace, input }) =>
            env.startRun(worker, {
              script,
              workspace: runWorkspace,
              maxSteps: input.maxSteps ?? 2,
              latencyMs: 0,
              input,
              label: 'fuzz',
            }),
          workspace,
          turns.slice(first, first + TURNS_PER_RUN),
          RUN_TIMEOUT_MS,
        );
        outcomes.push(outcome);
        process.stderr.write(
          `[fuzz] run ${outcomes.length}: ${outcome.turns} turns, ${outcome.calls} calls, ${outcome.ending}, ` +
            `${Math.round(outcome.ms)} ms${outcome.problems.length ? ` — ${outcome.problems.slice(0, 3).join('; ')}` : ''}\n`,
        );
      } finally {
        await rm(workspace, { recursive: true, force: true });
      }
    }
  } finally {
    await env.close();
  }
  return summarize(outcomes, seed, performance.now() - started);
}

function summarize(outcomes: readonly HostileRunOutcome[], seed: number, ms: number): ScenarioResult {
  const sum = (pick: (outcome: HostileRunOutcome) => number) =>
    outcomes.reduce((total, outcome) => total + pick(outcome), 0);
  const count = (ending: string) => outcomes.filter((outcome) => outcome.ending === ending).length;
  const passed = outcomes.filter((outcome) => outcome.ending === 'completed' && outcome.problems.length === 0).length;
  const slowest = Math.max(0, ...outcomes.map((outcome) => outcome.ms));
  return {
    name: 'fuzz',
    runs: outcomes.length,
    passed,
    lost: count('stuck'),
    duplicated: 0,
    notes: outcomes.flatMap((outcome, index) => outcome.problems.map((problem) => `run ${index + 1}: ${problem}`)),
    command: `node --import tsx soak/fuzz.ts --turns ${sum((outcome) => outcome.turns)} --seed ${seed}`,
    figures: [
      { label: 'seed', value: String(seed) },
      { label: 'turns', value: String(sum((outcome) => outcome.turns)) },
      { label: 'calls', value: String(sum((outcome) => outcome.calls)) },
      { label: 'envelopes', value: String(sum((outcome) => outcome.envelopes)) },
      { label: 'crashes', value: String(count('crashed')) },
      { label: 'stuck', value: String(count('stuck')) },
      { label: 'runs passed', value: `${passed}/${outcomes.length}` },
      { label: 'slowest run', value: `${(slowest / 1000).toFixed(1)} s` },
      { label: 'wall time', value: `${(ms / 1000).toFixed(1)} s` },
    ],
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({ options: { turns: { type: 'string', default: '1000' }, seed: { type: 'string' } } });
  const result = await fuzzScenario({
    turns: Number(values.turns),
    ...(values.seed !== undefined ? { seed: Number(values.seed) } : {}),
  });
  for (const figure of result.figures) process.stdout.write(`${figure.label.padEnd(12)} ${figure.value}\n`);
  for (const note of result.notes.slice(0, 50)) process.stdout.write(`note: ${note.slice(0, 500)}\n`);
  process.exitCode = result.passed === result.runs ? 0 : 1;
}
