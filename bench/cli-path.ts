// `run` as a user meets it: the compiled CLI in a fresh process against the embedded server and its background worker
// (cli-env.ts). How soon after the process is spawned its workflow has started (the server's WorkflowExecutionStarted
// event time; bench and server share this machine's clock) and how soon it exits, beside `temporal workflow start` and
// `temporal workflow execute` of the same workflow with the same input; and the durability tax through the CLI: a
// 30-step run (one ReadFile a step), start-up included, against the in-process floor (floor-loop.ts) making the same
// model calls to the same scripted server at the same latency, and beside it Temporal alone: the floor workflow
// (temporal-floor.ts) on the same server against the same in-process floor.
import { randomBytes } from 'node:crypto';
import { mkdtemp, realpath, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { loadOrCreateOperatorKey } from '../src/authorization/operator-key.js';
import { signRun } from '../src/authorization/signing.js';
import { hostToolQueue } from '../src/config.js';
import type { AgentInput } from '../src/core/state.js';
import type { ScriptTurn, ScriptedModelServer, ScriptedModelServerOptions } from '../src/scripted-model/server.js';
import { startScriptedModelServer } from '../src/scripted-model/server.js';
import { createDirectoryStore } from '../src/store/directory-store.js';
import type { CliEnv } from './cli-env.js';
import { withCliEnv } from './cli-env.js';
import { ANSWER, readScript, writeReadFiles } from './durable-scripts.js';
import { createFloor } from './floor-loop.js';
import { startTemporalFloor } from './temporal-floor.js';
import type { BenchRow } from './measure.js';
import { formatMs, formatRatio, median, pairedRange, speedVerdict } from './measure.js';

/** `run`'s time from spawn to its workflow's start that the CLI aims at, with the embedded server up. */
const START_TARGET_MS = 300;
/** The durability tax through the CLI that it aims at, 30 steps at 300 ms of model latency, start-up included. */
const TAX_TARGET = 1.1;
const TASK = 'Read the files one by one and say when you are done.';
// The CLI's default task queue (DURABLE_AGENT_TASK_QUEUE unset).
const TASK_QUEUE = 'durable-agent';
const MODEL = 'scripted-model';

interface Sizes {
  startRepetitions: number;
  steps: number;
  latencyMs: number;
  taxRepetitions: number;
  zeroLatencyRepetitions: number;
}

/** The scripted model every measured run of this section talks to, keeping only the last two requests. */
function startModel(script: ScriptedModelServerOptions['script'], latencyMs: number): Promise<ScriptedModelServer> {
  return startScriptedModelServer({ script, latencyMs, keepRequests: 2 });
}

/** One measured command: spawn to workflow start, and spawn to exit. */
interface Timing {
  startMs: number;
  exitMs: number;
}

/** The rows of the `cli-path` section. */
export async function benchCliPath(options: { quick: boolean; log: (line: string) => void }): Promise<BenchRow[]> {
  const sizes: Sizes = options.quick
    ? { startRepetitions: 3, steps: 5, latencyMs: 300, taxRepetitions: 1, zeroLatencyRepetitions: 2 }
    : { startRepetitions: 11, steps: 30, latencyMs: 300, taxRepetitions: 3, zeroLatencyRepetitions: 5 };
  const workspace = await realpath(await mkdtemp(path.join(os.tmpdir(), 'durable-agent-bench-cli-path-')));
  await writeReadFiles(workspace);
  try {
    return await withCliEnv(options.log, async (cli) => {
      const connection = await Connection.connect({ address: cli.address });
      try {
        const client = new Client({ connection });
        const runs = cliRuns(cli, client, workspace);
        return [
          ...(await startRows(runs, sizes)),
          ...(await taxRows(runs, workspace, sizes, { address: cli.address, client })),
        ];
      } finally {
        await connection.close();
      }
    });
  } finally {
    await rm(workspace, { recursive: true, force: true });
  }
}

interface CliRuns {
  /** `durable-agent run` of `script` at `latencyMs`, checked to have answered. */
  run(script: ScriptTurn[], latencyMs: number, maxSteps: number): Promise<Timing>;
  /** The same workflow through `temporal workflow start` (or `execute`, which waits for the result). */
  temporal(verb: 'start' | 'execute', script: ScriptTurn[]): Promise<Timing>;
}

function cliRuns(cli: CliEnv, client: Client, workspace: string): CliRuns {
  const startedAt = async (workflowId: string): Promise<number> => {
    const first = (await client.workflow.getHandle(workflowId).fetchHistory()).events?.[0];
    if (!first) throw new Error(`no history for ${workflowId}`);
    return timestampMs(first.eventTime);
  };
  const withModel = async <T>(script: ScriptTurn[], latencyMs: number, body: (url: string) => Promise<T>) => {
    const model = await startModel(script, latencyMs);
    try {
      return await body(model.url);
    } finally {
      await model.close();
    }
  };
  return {
    run: (script, latencyMs, maxSteps) =>
      withModel(script, latencyMs, async (url) => {
        const args = ['run', '--json', '--provider', 'scripted', '--model', MODEL, '--base-url', url];
        const spawned = Date.now();
        const result = await cli.cli([...args, '--max-steps', String(maxSteps), '--cwd', workspace, TASK]);
        const exited = Date.now();
        const end = JSON.parse(result.stdout.trim().split('\n').at(-1)!) as { workflowId: string; answer: string };
        if (end.answer !== ANSWER) throw new Error(`run answered ${JSON.stringify(end.answer)}`);
        return { startMs: (await startedAt(end.workflowId)) - spawned, exitMs: exited - spawned };
      }),
    temporal: (verb, script) =>
      withModel(script, 0, async (url) => {
        const workflowId = `agent-bench-temporal-${randomBytes(4).toString('hex')}`;
        const input = signedInput(cli.state, workflowId, {
          task: TASK,
          workspace,
          selection: { provider: 'scripted', model: MODEL, baseUrl: url },
          maxSteps: script.length,
          mode: 'default',
          askPolicy: 'deny',
          searchAttributes: true,
          toolTaskQueue: hostToolQueue(TASK_QUEUE),
        });
        const args = ['workflow', verb, '--address', cli.address, '--task-queue', TASK_QUEUE];
        const spawned = Date.now();
        await cli.run(cli.temporal, [
          ...args,
          ...['--type', 'agentWorkflow', '--workflow-id', workflowId, '--input', JSON.stringify(input)],
        ]);
        const exited = Date.now();
        return { startMs: (await startedAt(workflowId)) - spawned, exitMs: exited - spawned };
      }),
  };
}

/** The input signed with the operator key of the state directory, as the CLI signs the runs it starts. */
function signedInput(state: string, workflowId: string, input: AgentInput): AgentInput {
  return { ...input, authorization: signRun(loadOrCreateOperatorKey(state), workflowId, input) };
}

function timestampMs(time: { seconds?: unknown; nanos?: number | null } | null | undefined): number {
  if (!time) throw new Error('an event without a time');
  return Number(time.seconds ?? 0) * 1000 + Math.floor((time.nanos ?? 0) / 1e6);
}

/** Measures ours and the baseline `repetitions` times, alternating which goes first. */
async function paired<T>(
  repetitions: number,
  ours: () => Promise<T>,
  baseline: () => Promise<T>,
): Promise<{ ours: T[]; baseline: T[] }> {
  // One untimed pass of each: the first run of a fresh worker compiles its workflow bundle's code.
  await ours();
  await baseline();
  const measured = { ours: [] as T[], baseline: [] as T[] };
  for (let repetition = 0; repetition < repetitions; repetition++) {
    if (repetition % 2 === 0) {
      measured.ours.push(await ours());
      measured.baseline.push(await baseline());
    } else {
      measured.baseline.push(await baseline());
      measured.ours.push(await ours());
    }
  }
  return measured;
}

function row(
  measurement: string,
  ours: number[],
  baseline: number[],
  conclusion: (oursMs: number, baselineMs: number, ratio: number) => string,
): BenchRow {
  const oursMs = median(ours);
  const baselineMs = median(baseline);
  return {
    measurement,
    ours: formatMs(oursMs),
    baseline: formatMs(baselineMs),
    ratio: oursMs / baselineMs,
    ratioRange: pairedRange(ours, baseline),
    conclusion: conclusion(oursMs, baselineMs, oursMs / baselineMs),
  };
}

async function startRows(runs: CliRuns, sizes: Sizes): Promise<BenchRow[]> {
  const script: ScriptTurn[] = [{ content: ANSWER }];
  const started = await paired(
    sizes.startRepetitions,
    () => runs.run(script, 0, 1),
    () => runs.temporal('start', script),
  );
  const executed = await paired(
    sizes.startRepetitions,
    () => runs.run(script, 0, 1),
    () => runs.temporal('execute', script),
  );
  const of = (timings: Timing[], key: keyof Timing) => timings.map((timing) => timing[key]);
  const each = `medians of ${sizes.startRepetitions} fresh processes each, side by side`;
  return [
    row(
      'durable-agent run: spawn → workflow started (vs temporal workflow start)',
      of(started.ours, 'startMs'),
      of(started.baseline, 'startMs'),
      (ours, _baseline, ratio) =>
        `${formatRatio(ratio)} the Temporal CLI's time to the WorkflowExecutionStarted event (${each}); ` +
        (ours <= START_TARGET_MS
          ? `within the ${START_TARGET_MS / 1000} s target`
          : `${formatMs(ours - START_TARGET_MS)} over the ${START_TARGET_MS / 1000} s target`) +
        '.',
    ),
    row(
      'durable-agent run: spawn → exit, one-turn run (vs temporal workflow execute)',
      of(executed.ours, 'exitMs'),
      of(executed.baseline, 'exitMs'),
      (_ours, _baseline, ratio) =>
        `${formatRatio(ratio)} the time of \`temporal workflow execute\`, which waits for the same workflow's result ` +
        `without following its progress (${each}).`,
    ),
  ];
}

async function taxRows(
  runs: CliRuns,
  workspace: string,
  sizes: Sizes,
  server: { address: string; client: Client },
): Promise<BenchRow[]> {
  const script = readScript(sizes.steps);
  const floor = createFloor(createDirectoryStore(await mkdtemp(path.join(os.tmpdir(), 'durable-agent-bench-floor-'))));
  const inProcess = async (latencyMs: number): Promise<number> => {
    const model = await startModel(script, latencyMs);
    try {
      const started = Date.now();
      const result = await floor({
        taskId: `floor-${randomBytes(4).toString('hex')}`,
        task: TASK,
        workspace,
        selection: { provider: 'openai', model: MODEL, baseUrl: model.url },
        maxSteps: sizes.steps,
      });
      if (result.answer !== ANSWER) throw new Error(`the floor answered ${JSON.stringify(result.answer)}`);
      return Date.now() - started;
    } finally {
      await model.close();
    }
  };
  const rows: BenchRow[] = [await temporalFloorRow(workspace, sizes, server, inProcess)];
  for (const [latencyMs, repetitions] of [
    [sizes.latencyMs, sizes.taxRepetitions],
    [0, sizes.zeroLatencyRepetitions],
  ] as const) {
    const measured = await paired(
      repetitions,
      async () => (await runs.run(script, latencyMs, sizes.steps)).exitMs,
      () => inProcess(latencyMs),
    );
    rows.push(
      row(
        `${sizes.steps} steps at ${latencyMs} ms through durable-agent run, spawn → exit (vs in-process floor)`,
        measured.ours,
        measured.baseline,
        (ours, baseline, ratio) => {
          const perStep = formatMs((ours - baseline) / sizes.steps);
          const target =
            latencyMs === sizes.latencyMs
              ? ratio <= TAX_TARGET
                ? `; within the ${formatRatio(TAX_TARGET)} target`
                : `; over the ${formatRatio(TAX_TARGET)} target`
              : '';
          return (
            `${speedVerdict(ratio, 'the CLI run', 'the floor')}: ${perStep} a step over the floor, start-up and exit ` +
            `included (medians of ${repetitions})${target}.`
          );
        },
      ),
    );
  }
  return rows;
}

/**
 * What the durability tax target leaves room for on this machine: Temporal alone, the same step shape (temporal-floor.ts)
 * on the same embedded server, its worker in this process and no CLI, against the same in-process floor.
 */
async function temporalFloorRow(
  workspace: string,
  sizes: Sizes,
  server: { address: string; client: Client },
  inProcess: (latencyMs: number) => Promise<number>,
): Promise<BenchRow> {
  const closers: (() => Promise<void>)[] = [];
  try {
    const floorRun = await startTemporalFloor(
      {
        ...server,
        namespace: 'default',
        onClose: (closer) => closers.push(closer),
        startModel: (options) => startModel(options.script, options.latencyMs),
      },
      workspace,
    );
    const measured = await paired(
      sizes.taxRepetitions,
      () => floorRun({ steps: sizes.steps, latencyMs: sizes.latencyMs, label: 'cli-path' }),
      () => inProcess(sizes.latencyMs),
    );
    return row(
      `${sizes.steps} steps at ${sizes.latencyMs} ms, Temporal alone: floor workflow, client waiting (vs in-process floor)`,
      measured.ours,
      measured.baseline,
      (ours, baseline, ratio) =>
        `what Temporal itself costs here, no agent and no CLI: ${formatRatio(ratio)} the in-process floor, ` +
        `${formatMs((ours - baseline) / sizes.steps)} a step (medians of ${sizes.taxRepetitions}); the ` +
        `${formatRatio(TAX_TARGET)} target for the CLI run ${ratio <= TAX_TARGET ? 'leaves' : 'leaves no'} room above it.`,
    );
  } finally {
    for (const closer of closers.reverse()) await closer().catch(() => undefined);
  }
}
