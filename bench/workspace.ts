// The tree the search benchmarks run over (copies of this repository's src/) and a tool call made the activity's way.
import { cp, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { abbreviateParams } from '../src/protocol/envelope.js';
import type { Envelope } from '../src/protocol/envelope.js';
import type { ToolExecutor } from '../src/activities/executors/types.js';
import { runTool } from '../src/activities/run-tool.js';
import type { RunToolOptions } from '../src/activities/run-tool.js';

const repositorySource = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../src');

/** A temporary workspace holding `copies` copies of src/: `src/` itself, then `copy-2/src/`, `copy-3/src/`, …. */
export async function createSourceCopy(copies = 1): Promise<string> {
  const root = await mkdtemp(path.join(os.tmpdir(), 'durable-agent-bench-'));
  await cp(repositorySource, path.join(root, 'src'), { recursive: true });
  for (let copy = 2; copy <= copies; copy++) {
    await cp(repositorySource, path.join(root, `copy-${copy}`, 'src'), { recursive: true });
  }
  return root;
}

/** Removes a workspace made by createSourceCopy. */
export async function removeSourceCopy(root: string): Promise<void> {
  await rm(root, { recursive: true, force: true });
}

let calls = 0;

/** Runs one tool call through runTool, as the activity would, and returns its envelope; an error envelope throws. */
export async function callTool(
  toolName: string,
  executor: ToolExecutor,
  root: string,
  input: Record<string, unknown>,
  options: RunToolOptions = {},
): Promise<Envelope> {
  const result = await runTool(
    toolName,
    executor,
    {
      taskId: 'bench',
      turn: 1,
      index: 0,
      callId: `bench_${++calls}`,
      workspace: root,
      input,
      paramsInput: abbreviateParams(input),
    },
    options,
  );
  const envelope = result.envelope;
  if (envelope.status === 'error') {
    throw new Error(`${toolName} ${JSON.stringify(input)} failed: ${envelope.error?.message ?? 'unknown error'}`);
  }
  return envelope;
}
