// Load: many runs at once on one worker process, each a few steps of tool calls against its own scripted model. The
// worker runs alone in its process so its memory is its own: RSS is sampled from /proc while the runs go.
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { Client, Connection } from '@temporalio/client';
import type { AgentInput } from '../../src/core/state.js';
import { startScriptedModelServer } from '../../src/scripted-model/server.js';
import type { ScriptTurn } from '../../src/scripted-model/server.js';
import { agentWorkflow } from '../../src/workflows/agent.js';
import type { FaultEnv } from './faults/fault-run.js';
import { ledgerCheck } from './faults/fault-run.js';
import { timingsSince } from './task-timings.js';
import type { TaskTimings } from './task-timings.js';
import { startWorkerProcess } from './worker-process.js';

/** What a load run measured. */
export interface LoadOutcome {
  runs: number;
  steps: number;
  /** Runs that completed with their answer and exactly their files. */
  finished: number;
  /** What went wrong in the others, one line each. */
  failures: string[];
  /** From the first start to the last result. */
  wallMs: number;
  /** The worker's RSS after one warm-up run, before the load. */
  idleRssBytes: number;
  /** The highest RSS sampled during the load (and the kernel's high-water mark, VmHWM). */
  peakRssBytes: number;
  highWaterBytes: number;
  /** (peak − idle) ÷ runs. */
  perRunBytes: number;
  /** Heartbeat timeouts (no worker is killed: each is a false alarm) and slow workflow tasks of the loaded runs. */
  timings: TaskTimings;
}

/** Starts `runs` runs of `steps` steps at once on one fresh worker process and waits for all of them. */
export async function runLoad(env: FaultEnv, options: { runs: number; steps: number }): Promise<LoadOutcome> {
  const root = await mkdtemp(path.join(os.tmpdir(), 'durable-agent-load-'));
  const taskQueue = `load-${randomBytes(4).toString('hex')}`;
  const worker = await startWorkerProcess({
    address: env.address,
    taskQueue,
    storeDir: path.join(root, 'store'),
    bundlePath: env.bundlePath,
  });
  const connection = await Connection.connect({ address: env.address });
  const client = new Client({ connection });
  try {
    // The first run pays for the worker's lazy start (workflow isolate, connections): it is part of idle.
    const warmUp = await oneRun(client, taskQueue, root, 'warm-up', options.steps);
    if (warmUp !== undefined) throw new Error(`the warm-up run failed: ${warmUp}`);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const idleRssBytes = memoryOf(worker.pid).rss;
    let peakRssBytes = idleRssBytes;
    const sampler = setInterval(() => {
      peakRssBytes = Math.max(peakRssBytes, memoryOf(worker.pid).rss);
    }, 100);
    const startedAt = Date.now();
    const started = performance.now();
    const results = await Promise.all(
      Array.from({ length: options.runs }, (_, index) =>
        oneRun(client, taskQueue, root, `run-${index}`, options.steps),
      ),
    );
    const wallMs = performance.now() - started;
    clearInterval(sampler);
    const { rss, highWater } = memoryOf(worker.pid);
    peakRssBytes = Math.max(peakRssBytes, rss);
    const failures = results.filter((failure): failure is string => failure !== undefined);
    return {
      runs: options.runs,
      steps: options.steps,
      finished: options.runs - failures.length,
      failures,
      wallMs,
      idleRssBytes,
      peakRssBytes,
      highWaterBytes: highWater,
      perRunBytes: (peakRssBytes - idleRssBytes) / options.runs,
      timings: await timingsSince(client, startedAt, taskQueue),
    };
  } finally {
    await worker.stop();
    await connection.close();
    await rm(root, { recursive: true, force: true });
  }
}

/** One run: a WriteFile, then Bash appends, then the answer. Returns what went wrong, or undefined. */
async function oneRun(
  client: Client,
  taskQueue: string,
  root: string,
  label: string,
  steps: number,
): Promise<string | undefined> {
  const workspace = await mkdtemp(path.join(root, `${label}-`));
  const lines = Array.from({ length: Math.max(0, steps - 2) }, (_, index) => `${label}-line-${index + 1}`);
  const answer = `${label} done`;
  const script: ScriptTurn[] = [
    { tool_calls: [{ name: 'WriteFile', arguments: { path: 'out.txt', content: `${label}\n` } }] },
    ...lines.map((line) => ({ tool_calls: [{ name: 'Bash', arguments: { command: `echo ${line} >> ledger.txt` } }] })),
    { content: answer },
  ];
  const model = await startScriptedModelServer({ script, keepRequests: 1 });
  try {
    const input: AgentInput = {
      task: 'Do the scripted task.',
      workspace,
      maxSteps: steps,
      mode: 'default',
      askPolicy: 'deny',
      selection: { provider: 'openai', model: 'scripted-model', baseUrl: model.url },
    };
    const handle = await client.workflow.start(agentWorkflow, {
      workflowId: `load-${label}-${randomBytes(4).toString('hex')}`,
      taskQueue,
      args: [input],
    });
    const result = await handle.result();
    if (result.status !== 'completed' || result.answer !== answer)
      return `${label}: ended ${result.status} (${result.error ?? result.answer})`;
    const out = await readFile(path.join(workspace, 'out.txt'), 'utf8');
    if (out !== `${label}\n`) return `${label}: out.txt holds ${JSON.stringify(out)}`;
    const ledger = ledgerCheck(await readFile(path.join(workspace, 'ledger.txt'), 'utf8').catch(() => ''), lines);
    if (ledger.lost.length + ledger.duplicated.length > 0)
      return `${label}: ledger lost ${ledger.lost.join(', ') || 'nothing'}, duplicated ${ledger.duplicated.join(', ') || 'nothing'}`;
    return undefined;
  } catch (error) {
    return `${label}: ${(error as Error).message}`;
  } finally {
    await model.close();
  }
}

/** VmRSS and VmHWM of a process, in bytes. */
function memoryOf(pid: number): { rss: number; highWater: number } {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? Number.NaN);
  return { rss: kib('VmRSS') * 1024, highWater: kib('VmHWM') * 1024 };
}
