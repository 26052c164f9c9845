// Tool selection on a large tool set: the committed fixture's 200 tools (bench/tool-selection/tools.json, from
// generate-tools.ts) registered next to the built-ins, and 50 tasks as users write them, each with the tools it
// needs. The step-1 tools come from the same core function the workflow calls (stepTools); the baseline sends every
// tool. Recall@K: the share of a task's needed tools among the K shown, averaged over the tasks. Tokens: the Chat
// Completions tool schemas sent, counted with the o200k_base tokenizer.
import { performance } from 'node:perf_hooks';
import { countTokens } from 'gpt-tokenizer';
import type { AgentInput } from '../src/core/state.js';
import { initialState } from '../src/core/state.js';
import { createToolIndex } from '../src/tools/tool-index.js';
import { stepTools } from '../src/core/tool-selection/step-tools.js';
import type { ToolRegistry } from '../src/tools/define-tool.js';
import { toToolSchema } from '../src/tools/schema-export.js';
import { createTaskRegistry } from '../src/tools/task-registry.js';
import type { BenchRow } from './measure.js';
import { formatMs, median } from './measure.js';
import type { FixtureTask } from './tool-selection/fixture-contracts.js';
import { fixtureContract, loadFixtureTasks, loadFixtureTools } from './tool-selection/fixture-contracts.js';

const RECALL_TARGET = 0.95;
const TOKEN_CUT_TARGET = 0.8;
const TIMING_REPETITIONS = 20;

/** The step-1 tool names of `task` with at most `maxTools` tools (every tool when Infinity). */
function stepOneTools(registry: ToolRegistry, task: string, maxTools: number): string[] {
  const state = initialState('bench-tool-selection', 'system', task);
  state.step = 1;
  const input: AgentInput = {
    task,
    workspace: '/workspace',
    selection: {},
    maxSteps: 50,
    mode: 'default',
    askPolicy: 'deny',
    ...(Number.isFinite(maxTools) ? { maxTools } : { maxTools: Number.MAX_SAFE_INTEGER }),
  };
  return stepTools({ state, input, registry }, 0).names;
}

function schemaTokens(registry: ToolRegistry, names: readonly string[]): number {
  return countTokens(JSON.stringify(names.map((name) => toToolSchema(registry.get(name)!))));
}

function recallOf(task: FixtureTask, shown: readonly string[]): number {
  return task.expected.filter((name) => shown.includes(name)).length / task.expected.length;
}

function recallRow(registry: ToolRegistry, tasks: readonly FixtureTask[], limit: number, all: number): BenchRow {
  const recalls = tasks.map((task) => recallOf(task, stepOneTools(registry, task.task, limit)));
  const recall = recalls.reduce((sum, value) => sum + value, 0) / recalls.length;
  const whole = recalls.filter((value) => value === 1).length;
  const missed = tasks.filter((_, index) => recalls[index]! < 1).length;
  const verdict =
    limit === 16
      ? recall >= RECALL_TARGET
        ? `meets the ≥ ${RECALL_TARGET} target`
        : `misses the ≥ ${RECALL_TARGET} target`
      : 'for comparison';
  return {
    measurement: `Recall@${limit} of the step-1 tools, ${tasks.length} tasks`,
    ours: `${recall.toFixed(3)} (${whole}/${tasks.length} tasks whole)`,
    baseline: `1.000 (all ${all} tools)`,
    ratio: recall,
    ratioRange: [Math.min(...recalls), Math.max(...recalls)],
    conclusion:
      `with ${limit} of ${all} tools the model sees ${(recall * 100).toFixed(1)} % of the tools the tasks need ` +
      `(${verdict}); the rest stay reachable through ToolSearch. ${missed} task${missed === 1 ? '' : 's'} miss a tool.`,
  };
}

/** Recall at 8 and 16 tools, schema tokens at 16 against all tools, and what selecting costs per step. */
export async function benchToolSelection(): Promise<BenchRow[]> {
  const [tools, tasks] = await Promise.all([loadFixtureTools(), loadFixtureTasks()]);
  const registry = createTaskRegistry();
  for (const tool of tools) registry.register(fixtureContract(tool));
  const all = stepOneTools(registry, tasks[0]!.task, Number.POSITIVE_INFINITY).length;

  const rows = [recallRow(registry, tasks, 16, all), recallRow(registry, tasks, 8, all)];

  const allTokens = tasks.map((task) =>
    schemaTokens(registry, stepOneTools(registry, task.task, Number.POSITIVE_INFINITY)),
  );
  const selectedTokens = tasks.map((task) => schemaTokens(registry, stepOneTools(registry, task.task, 16)));
  const ours = median(selectedTokens);
  const baseline = median(allTokens);
  const cut = 1 - ours / baseline;
  rows.push({
    measurement: `Tool schema tokens per step-1 request (o200k_base), 16 of ${all} tools`,
    ours: `${Math.round(ours)}`,
    baseline: `${Math.round(baseline)}`,
    ratio: ours / baseline,
    ratioRange: [
      Math.min(...selectedTokens.map((value, index) => value / allTokens[index]!)),
      Math.max(...selectedTokens.map((value, index) => value / allTokens[index]!)),
    ],
    conclusion:
      `selection cuts the schema tokens of a request by ${(cut * 100).toFixed(1)} % ` +
      `(${cut >= TOKEN_CUT_TARGET ? 'meets' : 'misses'} the target of ≥ ${TOKEN_CUT_TARGET * 100} %).`,
  });

  // Cost: a selecting step against a step that lists every tool, the index already built (once per run).
  const build = median(
    Array.from({ length: 5 }, () => {
      const started = performance.now();
      createToolIndex(registry.list());
      return performance.now() - started;
    }),
  );
  const selecting: number[] = [];
  const listing: number[] = [];
  for (let repetition = 0; repetition < TIMING_REPETITIONS; repetition++) {
    for (const task of tasks) {
      let started = performance.now();
      stepOneTools(registry, task.task, 16);
      selecting.push(performance.now() - started);
      started = performance.now();
      stepOneTools(registry, task.task, Number.POSITIVE_INFINITY);
      listing.push(performance.now() - started);
    }
  }
  const perStep = median(selecting);
  const perListing = median(listing);
  rows.push({
    measurement: `Step-1 tools: selecting 16 vs listing all ${all}, per step`,
    ours: formatMs(perStep),
    baseline: formatMs(perListing),
    ratio: perStep / perListing,
    ratioRange: [Math.min(...selecting) / median(listing), Math.max(...selecting) / median(listing)],
    conclusion:
      `ranking adds ${formatMs(perStep - perListing)} to a step's workflow code; the index is built once per run ` +
      `(${formatMs(build)} for ${registry.list().length} tools).`,
  });
  return rows;
}
