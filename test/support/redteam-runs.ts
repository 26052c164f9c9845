// Runs of a hostile scripted model through an operator's real CLI, and what the model was sent back: the red-team
// suite reads the tool results the way the model would, and the machine the way the operator would. Each red-team
// file's tests share one operator (sharedOperator) and its clean-up.
import { createHash } from 'node:crypto';
import { lstat, readdir, readFile, readlink, stat } from 'node:fs/promises';
import path from 'node:path';
import type { ChatMessage } from '../../src/protocol/model.js';
import { startScriptedModelServer } from '../../src/scripted-model/server.js';
import type { ScriptedModelServer, ScriptTurn } from '../../src/scripted-model/server.js';
import { afterAll, beforeAll } from 'vitest';
import { removeOperators, startOperator } from './operator.js';
import type { CliOutcome, Identity, Operator } from './operator.js';
import { startDetached } from './cli.js';

/** Each test plays whole runs through the CLI; the first also starts the operator's server and worker. */
export const REDTEAM_TEST_MS = 150_000;

/**
 * The operator the tests of one describe block share: started before them, with the worker environment `env` returns
 * (set up whatever it names there), and after them closed, with the model servers `hostileRun` opened and every
 * operator's files. Call the returned function inside a test or a later hook.
 */
export function sharedOperator(
  identity: Identity,
  env: () => Promise<Record<string, string>> | Record<string, string> = () => ({}),
): () => Operator {
  let operator: Operator | undefined;
  beforeAll(async () => {
    operator = await startOperator(identity, await env());
  });
  afterAll(async () => {
    await operator?.close();
    await closeRuns();
    await removeOperators();
  }, REDTEAM_TEST_MS);
  return () => {
    if (!operator) throw new Error('the shared operator has not started');
    return operator;
  };
}

/** Starts `durable-agent start --ask wait` on `model`; the run stops at its first question (exit code 4). Its id. */
export async function startWaitingRun(
  operator: Operator,
  workspace: string,
  model: ScriptedModelServer,
  task: string,
): Promise<string> {
  return await startDetached(
    (args) => operator.cli(args),
    ['--cwd', workspace, '--ask', 'wait', '--base-url', model.url, task],
  );
}

/** True when nothing is at `file`. */
export async function absent(file: string): Promise<boolean> {
  return stat(file).then(
    () => false,
    () => true,
  );
}

/** A tool call of a scripted turn: `name` with `arguments`, under `id`. */
export function call(id: string, name: string, args: Record<string, unknown>) {
  return { id, name, arguments: args };
}

/** One turn of Bash calls, one per command, ids `<prefix>1…`. */
export function bashTurn(prefix: string, ...commands: string[]): ScriptTurn {
  return { tool_calls: commands.map((command, index) => call(`${prefix}${index + 1}`, 'Bash', { command })) };
}

/** How a run went, as the operator and the model saw it. */
export interface HostileRun {
  cli: CliOutcome;
  /** The `--json` result, when the CLI printed one. */
  result?: { status?: string; answer?: string; error?: string; workflowId?: string };
  model: ScriptedModelServer;
  /** Every tool message the model was sent, by call id (the envelope's text). */
  toolMessages: Map<string, string>;
}

/**
 * Plays `turns` then a final answer through `durable-agent run --json` in `workspace` (the model server stays open
 * for the caller to read, and is closed by `closeRuns`).
 */
export async function hostileRun(
  operator: Operator,
  workspace: string,
  turns: ScriptTurn[],
  options: { ask?: string; args?: string[]; env?: Record<string, string>; input?: string; timeoutMs?: number } = {},
): Promise<HostileRun> {
  const model = await startScriptedModelServer({ script: [...turns, { content: 'done' }] });
  opened.push(model);
  const cli = await operator.cli(
    [
      'run',
      '--cwd',
      workspace,
      '--ask',
      options.ask ?? 'deny',
      '--json',
      '--max-steps',
      String(turns.length + 2),
      '--base-url',
      model.url,
      ...(options.args ?? []),
      'red team',
    ],
    {
      ...(options.env ? { env: options.env } : {}),
      ...(options.input !== undefined ? { input: options.input } : {}),
      ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}),
    },
  );
  let result: HostileRun['result'];
  try {
    result = JSON.parse(String(cli.stdout)) as HostileRun['result'];
  } catch {
    result = undefined;
  }
  return { cli, ...(result ? { result } : {}), model, toolMessages: toolMessagesOf(model) };
}

const opened: ScriptedModelServer[] = [];

/** Closes every model server `hostileRun` opened. */
export async function closeRuns(): Promise<void> {
  await Promise.all(opened.splice(0).map((model) => model.close()));
}

/** What a Bash call printed (its envelope's stdout and stderr), or the whole envelope text when it has none. */
export function printed(envelopeText: string | undefined): string {
  if (envelopeText === undefined) return '';
  try {
    const envelope = JSON.parse(envelopeText) as { data?: { stdout?: unknown; stderr?: unknown } };
    const text = (value: unknown): string => (typeof value === 'string' ? value : '');
    const { stdout, stderr } = envelope.data ?? {};
    if (typeof stdout === 'string' || typeof stderr === 'string') return `${text(stdout)}\n${text(stderr)}`;
  } catch {
    // Not an envelope: the text as it came.
  }
  return envelopeText;
}

/** Everything the run's Bash calls printed, in call order. */
export function allPrinted(run: HostileRun): string {
  return [...run.toolMessages.values()].map(printed).join('\n');
}

/** The tool messages of the last request the model was sent, by call id. */
export function toolMessagesOf(model: ScriptedModelServer): Map<string, string> {
  const messages: ChatMessage[] = model.requests.at(-1)?.messages ?? [];
  const byCall = new Map<string, string>();
  for (const message of messages) {
    if (message.role === 'tool') byCall.set(message.tool_call_id, String(message.content));
  }
  return byCall;
}

/**
 * A fingerprint of everything under `root` (names, types, modes, link targets, contents): equal fingerprints mean
 * nothing there was created, changed or deleted.
 */
export async function treeFingerprint(root: string): Promise<string> {
  const hash = createHash('sha256');
  const visit = async (directory: string): Promise<void> => {
    const entries = (await readdir(directory).catch(() => [] as string[])).sort();
    for (const name of entries) {
      const full = path.join(directory, name);
      const info = await lstat(full);
      hash.update(`${path.relative(root, full)}\0${info.mode}\0`);
      if (info.isSymbolicLink()) hash.update(await readlink(full));
      else if (info.isDirectory()) await visit(full);
      else if (info.isFile()) hash.update(await readFile(full));
      hash.update('\n');
    }
  };
  await visit(root);
  return hash.digest('hex');
}
