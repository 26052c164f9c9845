// What every fault scenario shares: a workspace, a scripted model that notes when each turn is served, a run on a
// worker process, and the checks made afterwards (the answer, exact file contents, lines applied once, temp files and
// processes left behind, the activities that needed another attempt).
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, readdir, writeFile } from 'node:fs/promises';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import type { WorkflowHandleWithFirstExecutionRunId } from '@temporalio/client';
import type { AgentInput } from '../../../src/core/state.js';
import { startScriptedModelServer } from '../../../src/scripted-model/server.js';
import type { ScriptTurn, ScriptedModelServer } from '../../../src/scripted-model/server.js';
import { agentWorkflow } from '../../../src/workflows/agent.js';
import { startWorkerProcess } from '../worker-process.js';
import type { WorkerProcess, WorkerProcessConfig } from '../worker-process.js';

/** Where a scenario runs: a Temporal server and a workflow bundle file its worker processes load. */
export interface FaultEnv {
  address: string;
  bundlePath: string;
}

/** What a fault scenario found; every list empty and the answer as expected means it survived. */
export interface FaultOutcome {
  scenario: string;
  status: string;
  answer: string | null;
  expectedAnswer: string;
  /** Files whose content is not exactly what the run should leave, as "path: expected …, got …". */
  wrongFiles: string[];
  /** Side effects (ledger lines) missing, or applied more than once. */
  lost: string[];
  duplicated: string[];
  /** Temp files of the atomic write left in the workspace. */
  leftoverTemps: string[];
  /** Processes the run started that are still alive ("pid: command"). */
  orphans: string[];
  /**
   * From the fault to the first model request after it (the interrupted step is done and the run goes on), or — for a
   * call tried again — to the moment that call started again on another worker.
   */
  resumeMs: number;
  /** Activities that took more than one attempt ("callModel attempt 2"). */
  retried: string[];
  notes: string[];
}

/** A run of one scenario: its workspace, model, client and the worker processes started for it. */
export interface FaultRun {
  workspace: string;
  model: ScriptedModelServer;
  /** Date.now() at which each turn (1-based) was served. */
  servedAt: Map<number, number>;
  handle: WorkflowHandleWithFirstExecutionRunId<typeof agentWorkflow>;
  client: Client;
  taskQueue: string;
  storeDir: string;
  /** Starts another worker process on the run's queue (and stops it with close()). */
  startWorker(options?: WorkerTuning): Promise<WorkerProcess>;
  close(): Promise<void>;
}

/** What one worker process of a fault run is started with beyond the run's own settings. */
type WorkerTuning = Pick<WorkerProcessConfig, 'pauseBeforeCommit' | 'stickyQueueScheduleToStartTimeoutMs'>;

/** Writes `files` into a fresh workspace, starts a worker process and a run of `script` against it. */
export async function startFaultRun(
  env: FaultEnv,
  options: {
    script: ScriptTurn[];
    files?: Record<string, string>;
    pauseBeforeCommit?: string;
    /** Settings of the run beyond the defaults (its endpoint is always the scenario's model), or made from the workspace. */
    input?: Partial<AgentInput> | ((workspace: string) => Partial<AgentInput>);
    /** Added to every worker process's environment (a content store in a bucket, …). */
    workerEnv?: Record<string, string>;
    /** The command every worker process runs under (see WorkerProcessConfig.launcher). */
    launcher?: string[];
    /** How the first worker process is tuned (the one `first` names). */
    firstWorker?: Pick<WorkerTuning, 'stickyQueueScheduleToStartTimeoutMs'>;
  },
): Promise<{ run: FaultRun; first: WorkerProcess }> {
  const workspace = await mkdtemp(path.join(os.tmpdir(), 'durable-agent-fault-'));
  for (const [name, content] of Object.entries(options.files ?? {}))
    await writeFile(path.join(workspace, name), content);
  const storeDir = path.join(workspace, '.agent', 'store');
  const taskQueue = `fault-${randomBytes(4).toString('hex')}`;
  const servedAt = new Map<number, number>();
  const model = await startScriptedModelServer({
    script: options.script,
    log: (line) => {
      const turn = /serving turn (\d+)\//.exec(line)?.[1];
      if (turn !== undefined) servedAt.set(Number(turn), Date.now());
    },
  });
  const workers: WorkerProcess[] = [];
  const connection = await Connection.connect({ address: env.address });
  const startWorker: FaultRun['startWorker'] = async (workerOptions = {}) => {
    const worker = await startWorkerProcess({
      address: env.address,
      taskQueue,
      storeDir,
      bundlePath: env.bundlePath,
      ...(options.workerEnv ? { env: options.workerEnv } : {}),
      ...(options.launcher ? { launcher: options.launcher } : {}),
      ...workerOptions,
    });
    workers.push(worker);
    return worker;
  };
  const close = async (): Promise<void> => {
    await Promise.all(workers.map((worker) => worker.stop().catch(() => undefined)));
    await model.close();
    await connection.close();
  };
  try {
    const first = await startWorker({
      ...options.firstWorker,
      ...(options.pauseBeforeCommit ? { pauseBeforeCommit: options.pauseBeforeCommit } : {}),
    });
    const client = new Client({ connection });
    const input: AgentInput = {
      task: 'Do the scripted task.',
      workspace,
      maxSteps: 20,
      mode: 'default',
      askPolicy: 'deny',
      ...(typeof options.input === 'function' ? options.input(workspace) : options.input),
      selection: { provider: 'openai', model: 'scripted-model', baseUrl: model.url },
    };
    const handle = await client.workflow.start(agentWorkflow, {
      workflowId: `fault-${randomBytes(4).toString('hex')}`,
      taskQueue,
      args: [input],
    });
    return { run: { workspace, model, servedAt, handle, client, taskQueue, storeDir, startWorker, close }, first };
  } catch (error) {
    await close();
    throw error;
  }
}

/** Waits for the run and checks it against what it should have left; `faultAt` is Date.now() of the fault. */
export async function finishFaultRun(
  run: FaultRun,
  expected: {
    scenario: string;
    faultAt: number;
    answer: string;
    /** Exact contents of workspace files. */
    files?: Record<string, string>;
    /** Lines of `ledger.txt`, each written by one side effect that must happen exactly once. */
    ledger?: string[];
    /** A string only the command lines of the processes the run started contain. */
    processToken?: string;
    notes?: string[];
    /** Date.now() at which the interrupted call started again, when the scenario measures resuming by that. */
    resumedAt?: number;
  },
): Promise<FaultOutcome> {
  const result = await run.handle.result();
  const wrongFiles: string[] = [];
  for (const [name, content] of Object.entries(expected.files ?? {})) {
    const actual = await readFile(path.join(run.workspace, name), 'utf8').catch(() => '(missing)');
    if (actual !== content)
      wrongFiles.push(`${name}: expected ${JSON.stringify(content)}, got ${JSON.stringify(actual)}`);
  }
  const ledger = expected.ledger
    ? ledgerCheck(await readFile(path.join(run.workspace, 'ledger.txt'), 'utf8').catch(() => ''), expected.ledger)
    : { lost: [], duplicated: [] };
  const resumedAt =
    expected.resumedAt ?? [...run.servedAt.values()].filter((at) => at > expected.faultAt).sort((a, b) => a - b)[0];
  return {
    scenario: expected.scenario,
    status: result.status,
    answer: result.answer,
    expectedAnswer: expected.answer,
    wrongFiles,
    ...ledger,
    leftoverTemps: await atomicWriteTemps(run.workspace),
    orphans: expected.processToken ? processesWith(expected.processToken) : [],
    resumeMs: resumedAt === undefined ? Number.NaN : resumedAt - expected.faultAt,
    retried: await retriedActivities(run.handle),
    notes: expected.notes ?? [],
  };
}

/** Every way the outcome differs from a run that survived its fault (empty when it did). */
export function faultProblems(outcome: FaultOutcome): string[] {
  return [
    ...(outcome.status === 'completed' ? [] : [`the run ended ${outcome.status}`]),
    ...(outcome.answer === outcome.expectedAnswer ? [] : [`answer ${JSON.stringify(outcome.answer)}`]),
    ...outcome.wrongFiles,
    ...outcome.lost.map((line) => `lost: ${line}`),
    ...outcome.duplicated.map((line) => `applied twice: ${line}`),
    ...outcome.leftoverTemps.map((file) => `temp file left: ${file}`),
    ...outcome.orphans.map((process) => `orphan process: ${process}`),
    ...(Number.isFinite(outcome.resumeMs) ? [] : ['the run never called the model after the fault']),
  ];
}

/**
 * The script of a run a fault hits between two ledger lines: a command writes `one`, the turn in flight during the
 * fault (answered after `delayMs`) creates new.txt, a command writes `two`, then `answer`.
 */
export function ledgerScript(delayMs: number, answer: string): ScriptTurn[] {
  return [
    { tool_calls: [{ id: 'before', name: 'Bash', arguments: { command: 'echo one >> ledger.txt' } }] },
    {
      delay_ms: delayMs,
      tool_calls: [{ id: 'during', name: 'WriteFile', arguments: { path: 'new.txt', content: 'created\n' } }],
    },
    { tool_calls: [{ id: 'after', name: 'Bash', arguments: { command: 'echo two >> ledger.txt' } }] },
    { content: answer },
  ];
}

/** Which expected lines are missing from `content`, and which appear more than once. */
export function ledgerCheck(content: string, expected: string[]): { lost: string[]; duplicated: string[] } {
  const lines = content.split('\n').filter(Boolean);
  const count = (line: string) => lines.filter((candidate) => candidate === line).length;
  return {
    lost: expected.filter((line) => count(line) === 0),
    duplicated: expected.filter((line) => count(line) > 1),
  };
}

/** The atomic write's temp files (`.<name>.agent-<hex>.tmp`) anywhere in the workspace. */
export async function atomicWriteTemps(workspace: string): Promise<string[]> {
  const entries = await readdir(workspace, { recursive: true });
  return entries.filter((entry) => /(^|\/)\..+\.agent-[0-9a-f]{12}\.tmp$/.test(entry));
}

/** Live processes whose command line contains `token`, as "pid: command" (a zombie has finished: not counted). */
export function processesWith(token: string): string[] {
  const found: string[] = [];
  for (const entry of readdirSyncSafe('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    const commandLine = readProc(`/proc/${entry}/cmdline`).replaceAll('\0', ' ').trim();
    if (!commandLine.includes(token)) continue;
    const state = /^State:\s+(\S)/m.exec(readProc(`/proc/${entry}/status`))?.[1];
    if (state !== undefined && state !== 'Z') found.push(`${entry}: ${commandLine}`);
  }
  return found;
}

/** Kills the processes `processesWith(token)` finds, with their process groups (a test's own leftovers). */
export function killProcessesWith(token: string): void {
  for (const found of processesWith(token)) {
    const pid = Number(found.split(':')[0]);
    // A command's shell leads its own process group: the group takes its children (a `sleep`) along.
    for (const target of [-pid, pid]) {
      try {
        process.kill(target, 'SIGKILL');
      } catch {
        // Not a group leader, or already gone.
      }
    }
  }
}

async function retriedActivities(handle: FaultRun['handle']): Promise<string[]> {
  const history = await handle.fetchHistory();
  const names = new Map<string, string>();
  const retried: string[] = [];
  for (const event of history.events ?? []) {
    const scheduled = event.activityTaskScheduledEventAttributes;
    if (scheduled) names.set(String(event.eventId), scheduled.activityType?.name ?? '?');
    const started = event.activityTaskStartedEventAttributes;
    if (started && (started.attempt ?? 1) > 1)
      retried.push(`${names.get(String(started.scheduledEventId)) ?? '?'} attempt ${started.attempt}`);
  }
  return retried;
}

function readdirSyncSafe(directory: string): string[] {
  try {
    return fs.readdirSync(directory);
  } catch {
    return [];
  }
}

function readProc(file: string): string {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}
