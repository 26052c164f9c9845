// Sub-agents: a step whose model starts four read-only children (Task calls, run in parallel) against a step starting
// one, each child doing the same work (three model turns, two file reads). A step's time is the gap between the root's
// two model requests reaching the scripted server: the children's starts, their whole runs, their results.
import type { ScriptTurn } from '../src/scripted-model/server.js';
import { DEFAULT_SUB_AGENT_LIMITS } from '../src/core/sub-agents/limits.js';
import type { ChartedRows } from './chart.js';
import type { DurableEnv } from './durable-env.js';
import { ANSWER, writeReadFiles } from './durable-scripts.js';
import { formatMs, median, pairedRange } from './measure.js';
import { createSourceCopy, removeSourceCopy } from './workspace.js';

export interface SubAgentSizes {
  /** Simulated model latency of every turn, the root's and the children's. */
  latencyMs: number;
  repetitions: number;
}

const CHILDREN = 4;
const ACCEPTED_RATIO = 1.3;

/** The root's Task step with `children` read-only children, each reading two files and answering, then the answer. */
function subAgentScript(children: number): ScriptTurn[] {
  const names = Array.from({ length: children }, (_, index) => `Child task ${index}`);
  return [
    {
      for_task: 'Read the files',
      tool_calls: names.map((name, index) => ({
        id: `task${index}`,
        name: 'Task',
        arguments: { description: `read ${index}`, prompt: `${name}: read two files.` },
      })),
    },
    ...names.flatMap((name, index): ScriptTurn[] => [
      { for_task: name, tool_calls: [{ name: 'ReadFile', arguments: { path: `files/f${index}.txt` } }] },
      { for_task: name, tool_calls: [{ name: 'ReadFile', arguments: { path: `files/f${index + 4}.txt` } }] },
      { for_task: name, content: `${name} read both.` },
    ]),
    { for_task: 'Read the files', content: ANSWER },
  ];
}

/** The Task step's time with four children ÷ with one. */
export async function benchSubAgents(env: DurableEnv, sizes: SubAgentSizes): Promise<ChartedRows> {
  const workspace = await createSourceCopy();
  try {
    await writeReadFiles(workspace);
    const worker = await env.startWorker();
    const taskStep = async (children: number): Promise<number> => {
      const served: number[] = [];
      const script = subAgentScript(children);
      await env.runToEnd(worker, {
        script,
        workspace,
        maxSteps: 2,
        latencyMs: sizes.latencyMs,
        label: `sub-agents-${children}`,
        input: { subAgents: DEFAULT_SUB_AGENT_LIMITS },
        onTurn: (turn, at) => (served[turn - 1] = at),
      });
      if (served.length !== script.length)
        throw new Error(`expected ${script.length} model calls, saw ${served.length}`);
      // The root's Task turn is served first and its answer last: everything between is the step.
      return served.at(-1)! - served[0]!;
    };
    await taskStep(CHILDREN); // warm-up
    await taskStep(1);
    const four: number[] = [];
    const one: number[] = [];
    for (let repetition = 0; repetition < sizes.repetitions; repetition++) {
      const order = repetition % 2 === 0 ? [CHILDREN, 1] : [1, CHILDREN];
      for (const children of order) (children === 1 ? one : four).push(await taskStep(children));
    }
    const ratio = median(four) / median(one);
    return {
      rows: [
        {
          measurement: `Sub-agents: a step of ${CHILDREN} parallel read-only children ÷ a step of 1`,
          ours: formatMs(median(four)),
          baseline: formatMs(median(one)),
          ratio,
          ratioRange: pairedRange(four, one),
          conclusion:
            `${CHILDREN} children (3 model turns of ${sizes.latencyMs} ms and 2 reads each, every one its own child ` +
            `workflow) take ${ratio.toFixed(2)}× one child's step (accepted: ≤ ${ACCEPTED_RATIO}×; medians of ${sizes.repetitions}).`,
        },
      ],
      bars: [{ label: `sub-agents ${CHILDREN} ÷ 1 child`, value: ratio }],
    };
  } finally {
    await removeSourceCopy(workspace);
  }
}
