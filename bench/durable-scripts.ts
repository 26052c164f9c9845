// What the durable-run benchmarks ask the agent to do: a workspace of small files and scripted model turns that read
// them, one call or several a step, ending with an answer.
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { ScriptTurn } from '../src/scripted-model/server.js';

/** Size of each file a step reads: a typical source file. */
export const FILE_BYTES = 4096;
const FILE_COUNT = 10;

/** The final answer of every script. */
export const ANSWER = 'All files read; nothing unexpected.';

/** Writes files/f0.txt … files/f9.txt, FILE_BYTES each, into `root`. */
export async function writeReadFiles(root: string): Promise<void> {
  await mkdir(path.join(root, 'files'), { recursive: true });
  for (let index = 0; index < FILE_COUNT; index++) {
    const line = `f${index}: the quick brown fox jumps over the lazy dog\n`;
    await writeFile(
      path.join(root, 'files', `f${index}.txt`),
      line.repeat(Math.ceil(FILE_BYTES / line.length)).slice(0, FILE_BYTES),
    );
  }
}

/** A run of `steps` steps: one ReadFile a step, the last step the answer. */
export function readScript(steps: number): ScriptTurn[] {
  const turns: ScriptTurn[] = Array.from({ length: steps - 1 }, (_, index) => ({
    tool_calls: [{ name: 'ReadFile', arguments: { path: `files/f${index % FILE_COUNT}.txt` } }],
  }));
  turns.push({ content: ANSWER });
  return turns;
}

/**
 * Eight concurrency-safe calls over a copy of src/ (createSourceCopy) with the read files beside it: reads, globs and
 * greps, the exploring an agent does at the start of a task.
 */
export const FAN_OUT_CALLS: readonly { name: string; arguments: Record<string, unknown> }[] = [
  { name: 'ReadFile', arguments: { path: 'files/f0.txt' } },
  { name: 'Glob', arguments: { pattern: 'src/**/*.ts' } },
  { name: 'Grep', arguments: { pattern: 'export function', path: 'src/core' } },
  { name: 'ReadFile', arguments: { path: 'files/f1.txt' } },
  { name: 'Glob', arguments: { pattern: 'src/activities/*.ts' } },
  { name: 'Grep', arguments: { pattern: 'import type', path: 'src/tools' } },
  { name: 'ReadFile', arguments: { path: 'files/f2.txt' } },
  { name: 'ReadFile', arguments: { path: 'files/f3.txt' } },
];

/** `steps` steps that each make all of FAN_OUT_CALLS at once, then the answer. */
export function fanOutScript(steps: number): ScriptTurn[] {
  const turn: ScriptTurn = { tool_calls: FAN_OUT_CALLS.map((call) => ({ ...call })) };
  return [...Array.from({ length: steps }, () => turn), { content: ANSWER }];
}

/** One step for each of FAN_OUT_CALLS, one call a step, then the answer: the same tool work, one call at a time. */
export function oneCallScript(): ScriptTurn[] {
  return [...FAN_OUT_CALLS.map((call) => ({ tool_calls: [{ ...call }] })), { content: ANSWER }];
}

/** A run of `steps` steps: one WriteFile of a new FILE_BYTES file a step (out/wN.txt), the last step the answer. */
export function writeScript(steps: number): ScriptTurn[] {
  const line = 'the quick brown fox jumps over the lazy dog\n';
  const turns: ScriptTurn[] = Array.from({ length: steps - 1 }, (_, index) => ({
    tool_calls: [
      {
        name: 'WriteFile',
        arguments: { path: `out/w${index}.txt`, content: `${index}: ${line}`.repeat(FILE_BYTES / line.length) },
      },
    ],
  }));
  turns.push({ content: ANSWER });
  return turns;
}
