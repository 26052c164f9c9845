// Fan-out: a step making eight concurrency-safe calls against steps making one, on the durable run and on the
// in-process floor. A step's time is the gap between two model requests reaching the scripted server (no simulated
// latency): the answer's trip back, the tool calls, the bookkeeping and the next request.
import { randomBytes } from 'node:crypto';
import type { ScriptTurn } from '../src/scripted-model/server.js';
import { createDirectoryStore } from '../src/store/directory-store.js';
import type { DurableEnv } from './durable-env.js';
import { BENCH_TASK } from './durable-env.js';
import { FAN_OUT_CALLS, fanOutScript, oneCallScript, writeReadFiles } from './durable-scripts.js';
import { createFloor } from './floor-loop.js';
import type { ChartedRows } from './chart.js';
import type { BenchRow } from './measure.js';
import { formatMs, median, pairedRange } from './measure.js';
import { createSourceCopy, removeSourceCopy } from './workspace.js';

export interface FanOutSizes {
  /** Steps of eight calls in a fan-out run (a one-call run has one step for each of the eight calls). */
  steps: number;
  repetitions: number;
}

type Side = (script: ScriptTurn[], steps: number) => Promise<number>;

/** Mean step time with eight calls ÷ with one, for the durable run and for the floor. */
export async function benchFanOut(env: DurableEnv, sizes: FanOutSizes): Promise<ChartedRows> {
  const workspace = await createSourceCopy();
  try {
    await writeReadFiles(workspace);
    const worker = await env.startWorker();
    const floor = createFloor(createDirectoryStore(await env.tempDirectory('fanout-floor-store')));

    // The mean gap between consecutive turns: every step but the answer is a tool step.
    const meanStep = async (
      script: ScriptTurn[],
      run: (onTurn: (turn: number, at: number) => void) => Promise<void>,
    ) => {
      const served: number[] = [];
      await run((turn, at) => (served[turn - 1] = at));
      if (served.length !== script.length)
        throw new Error(`expected ${script.length} model calls, saw ${served.length}`);
      return (served.at(-1)! - served[0]!) / (served.length - 1);
    };
    const durable: Side = (script, steps) =>
      meanStep(script, async (onTurn) => {
        await env.runToEnd(worker, { script, workspace, maxSteps: steps, latencyMs: 0, label: 'fanout', onTurn });
      });
    const inProcess: Side = (script, steps) =>
      meanStep(script, async (onTurn) => {
        const model = await env.startModel({ script, latencyMs: 0, onTurn });
        try {
          const selection = { provider: 'openai', model: 'scripted-model', baseUrl: model.url };
          await floor({
            taskId: `floor-${randomBytes(4).toString('hex')}`,
            task: BENCH_TASK,
            workspace,
            selection,
            maxSteps: steps,
          });
        } finally {
          await model.close();
        }
      });

    const fanOut = fanOutScript(sizes.steps);
    const oneCall = oneCallScript();
    const rows: BenchRow[] = [];
    const medians: { eight: number; one: number }[] = [];
    for (const [label, side] of [
      ['durable run', durable],
      ['in-process floor', inProcess],
    ] as const) {
      await side(fanOut, fanOut.length); // warm-up
      await side(oneCall, oneCall.length);
      const eight: number[] = [];
      const one: number[] = [];
      for (let repetition = 0; repetition < sizes.repetitions; repetition++) {
        const order = repetition % 2 === 0 ? [true, false] : [false, true];
        for (const isFanOut of order) {
          if (isFanOut) eight.push(await side(fanOut, fanOut.length));
          else one.push(await side(oneCall, oneCall.length));
        }
      }
      const ratio = median(eight) / median(one);
      medians.push({ eight: median(eight), one: median(one) });
      rows.push({
        measurement: `Fan-out, ${label}: a step of ${FAN_OUT_CALLS.length} safe calls ÷ a step of 1`,
        ours: formatMs(median(eight)),
        baseline: formatMs(median(one)),
        ratio,
        ratioRange: pairedRange(eight, one),
        conclusion:
          `${FAN_OUT_CALLS.length} calls (ReadFile ×4, Glob ×2, Grep ×2, at most 4 at a time) take ${ratio.toFixed(2)}× ` +
          `a one-call step's time (the one-call steps make the same ${FAN_OUT_CALLS.length} calls one per step; medians of ${sizes.repetitions}).`,
      });
    }
    const [ours, floorRow] = rows as [BenchRow, BenchRow];
    const [durableTimes, floorTimes] = medians as [{ eight: number; one: number }, { eight: number; one: number }];
    // A durable step has a larger fixed cost, which shrinks its ratio; what the extra calls cost is the difference.
    ours.conclusion +=
      ` The ${FAN_OUT_CALLS.length - 1} extra calls add ${formatMs(durableTimes.eight - durableTimes.one)} to a durable step ` +
      `and ${formatMs(floorTimes.eight - floorTimes.one)} to a floor step.`;
    return {
      rows,
      bars: [
        { label: 'fan-out 8 ÷ 1 call, durable', value: ours.ratio },
        { label: 'fan-out 8 ÷ 1 call, floor', value: floorRow.ratio },
      ],
    };
  } finally {
    await removeSourceCopy(workspace);
  }
}
