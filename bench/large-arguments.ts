// A 1 MB WriteFile argument, layer by layer: each layer's time for 1 MB against the same layer for 1 KB (a layer that
// scales linearly shows a ratio near 1,000, a quadratic one far more), the stream against the SDK's own reader, and
// whole runs on a real Temporal server, through the openai and the anthropic SDK, with the arguments streamed a token
// at a time and in one delta.
import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { anthropicDialect } from '../src/providers/anthropic/scripted-dialect.js';
import { chatDialect } from '../src/providers/openai-chat/scripted-dialect.js';
import type { ScriptTurn } from '../src/scripted-model/script.js';
import type { AgentInput } from '../src/core/state.js';
import { agentWorkflow } from '../src/workflows/agent.js';
import {
  MEGABYTE,
  executorLayer,
  fileContent,
  layerDirectories,
  parseLayer,
  renderedStream,
  sdkStreamLayer,
  startStreamServer,
  storeLayer,
  streamLayer,
  turnLayer,
  validateLayer,
  writeFileArguments,
  writeFileStream,
} from '../test/support/large-argument-layers.js';
import { createFileLiveChannel } from '../src/live/file-channel.js';
import { DEFAULT_MAX_MODEL_OUTPUT_BYTES } from '../src/providers/output-limit.js';
import { BENCH_TASK, startDurableEnv } from './durable-env.js';
import type { BenchRow } from './measure.js';
import { compareTimes, formatMs, SelfTimed } from './measure.js';

const REPETITIONS = 5;
const SMALL = 1024;

function row(
  measurement: string,
  times: { ours: number; baseline: number; ratio: number; ratioRange: [number, number] },
  conclusion: string,
): BenchRow {
  return {
    measurement,
    ours: formatMs(times.ours),
    baseline: formatMs(times.baseline),
    ratio: times.ratio,
    ratioRange: times.ratioRange,
    conclusion,
  };
}

/** Every layer's time for a 1 MB argument; `quick` measures each once, to check the code. */
export async function benchLargeArguments(options: {
  quick: boolean;
  log: (line: string) => void;
}): Promise<BenchRow[]> {
  const { quick, log } = options;
  const repeat = (repetitions: number, warmups: number) =>
    quick ? { repetitions: 1, warmups: 0 } : { repetitions, warmups };
  const big = fileContent(MEGABYTE);
  const small = fileContent(SMALL);
  const bigArguments = writeFileArguments(big);
  const smallArguments = writeFileArguments(small);
  const rows: BenchRow[] = [];
  const perLayer = async (measurement: string, run: (text: string, size: 'big' | 'small') => unknown) => {
    const times = await compareTimes(
      ['case'],
      () => run(bigArguments.valid, 'big'),
      () => run(smallArguments.valid, 'small'),
      repeat(REPETITIONS, 2),
    );
    rows.push(row(`1 MB: ${measurement} (vs 1 KB)`, times, `${formatMs(times.ours)} for a megabyte`));
  };

  const server = await startStreamServer(writeFileStream(big));
  try {
    const times = await compareTimes(
      ['case'],
      () => streamLayer(server.url),
      () => sdkStreamLayer(server.url),
      repeat(3, 1),
    );
    rows.push(
      row(
        '1 MB in 4-char deltas: stream read and assembled (vs the SDK reader)',
        times,
        'readChatChunks reads each network read once; the SDK copies its buffer per event',
      ),
    );
  } finally {
    await server.close();
  }
  await perLayer('parse valid JSON', (text) => parseLayer(text));
  const mangled = { big: bigArguments.singleQuoted, small: smallArguments.singleQuoted };
  const truncated = { big: bigArguments.truncated, small: smallArguments.truncated };
  await perLayer('parse and repair single quotes', (_text, size) => parseLayer(mangled[size]));
  await perLayer('parse and close truncated JSON', (_text, size) => parseLayer(truncated[size]));
  const parsed = { big: parseLayer(bigArguments.valid), small: parseLayer(smallArguments.valid) };
  await perLayer('schema validation', (_text, size) => validateLayer(parsed[size]));
  await perLayer('plan + call machine + transcript', (text) => turnLayer(text));
  const directories = await layerDirectories();
  try {
    await perLayer('content store out and back', (text) => storeLayer(directories.store, text));
    let file = 0;
    await perLayer('WriteFile executor', (_text, size) =>
      executorLayer(directories.workspace, size === 'big' ? big : small, `file-${file++}`),
    );
  } finally {
    await directories.close();
  }
  rows.push(...(await endToEnd(big, log, repeat(3, 1))));
  return rows;
}

/** Delta sizes of the end-to-end rows: about a token, as models stream; the whole arguments in one delta. */
const END_TO_END_DELTAS = [
  { chars: 4, label: '4-char deltas' },
  { chars: undefined, label: 'one delta' },
] as const;

const DIALECTS = { openai: chatDialect, anthropic: anthropicDialect } as const;

/**
 * Whole runs writing the megabyte through each provider's real SDK, at each delta size, each against the same run
 * writing 1 KB; live output is on, written to a state directory as the CLI's worker does. The model's two answers are
 * the scripted server's, in the provider's dialect, rendered once, outside the clock: making 260,000 events is a
 * provider's work, not the worker's. The clock runs from the workflow's start to its result.
 */
async function endToEnd(
  big: string,
  log: (line: string) => void,
  repetitions: { repetitions: number; warmups: number },
): Promise<BenchRow[]> {
  const env = await startDurableEnv(log);
  try {
    const stateDir = await env.tempDirectory('large-state');
    const live = createFileLiveChannel({ stateDir, maxAttemptBytes: DEFAULT_MAX_MODEL_OUTPUT_BYTES });
    env.onClose(() => live.close());
    const worker = await env.startWorker({ live });
    const rows: BenchRow[] = [];
    for (const provider of ['openai', 'anthropic'] as const) {
      for (const delta of END_TO_END_DELTAS) {
        const dialect = DIALECTS[provider];
        const rendered = new Map<string, string[]>();
        const streamsFor = (content: string): string[] => {
          const answer: ScriptTurn = {
            tool_calls: [{ id: 'big', name: 'WriteFile', arguments: { path: 'big.txt', content } }],
            ...(delta.chars ? { chunk_size: delta.chars } : {}),
          };
          const streams = rendered.get(content) ?? [
            renderedStream(dialect, answer, 1),
            renderedStream(dialect, { content: 'written' }, 2),
          ];
          rendered.set(content, streams);
          return streams;
        };
        const run = async (content: string): Promise<SelfTimed> => {
          const workspace = await env.tempDirectory('large-ws');
          const model = await startStreamServer(streamsFor(content));
          try {
            const input: AgentInput = {
              task: BENCH_TASK,
              workspace,
              maxSteps: 2,
              mode: 'default',
              askPolicy: 'deny',
              searchAttributes: true,
              toolTaskQueue: worker.toolTaskQueue,
              selection: { provider, model: 'scripted-model', baseUrl: model.url },
            };
            const started = performance.now();
            const result = await worker.client.workflow.execute(agentWorkflow, {
              workflowId: `bench-large-argument-${randomUUID()}`,
              taskQueue: worker.taskQueue,
              args: [input],
            });
            const ms = performance.now() - started;
            if (result.status !== 'completed') throw new Error(`the run ended ${result.status}: ${result.error ?? ''}`);
            if ((await readFile(path.join(workspace, 'big.txt'), 'utf8')) !== content)
              throw new Error('the file differs');
            return new SelfTimed(ms);
          } finally {
            await model.close();
          }
        };
        const small = fileContent(SMALL);
        const times = await compareTimes(
          ['case'],
          () => run(big),
          () => run(small),
          repetitions,
        );
        rows.push(
          row(
            `1 MB WriteFile end to end, ${provider}, ${delta.label} (vs 1 KB)`,
            times,
            `${formatMs(times.ours)} from the workflow's start to its result`,
          ),
        );
      }
    }
    return rows;
  } finally {
    await env.close();
  }
}
