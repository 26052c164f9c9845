// Builds an ExecutorContext for calling a tool executor directly, outside Temporal, against a real directory.
import { realpathSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { abbreviateParams } from '../../src/protocol/envelope.js';
import type { ReadStateStore, ReadStateUpdate } from '../../src/protocol/read-state.js';
import type { ExecutorContext } from '../../src/activities/executors/types.js';
import { workspaceDataDirectory } from '../../src/activities/worker-data.js';

let calls = 0;

/** Options of `makeExecutorContext`; only `root` and `input` are required. */
export interface ExecutorContextOptions {
  /** Workspace root; resolved to its realpath here, as the activity wrapper does. */
  root: string;
  input: Record<string, unknown>;
  readState?: ReadStateStore;
  /** Temporal attempt number, 1 by default. */
  attempt?: number;
  /** Stable across retries; defaults to a key derived from the call id. */
  activityKey?: string;
  callId?: string;
  taskId?: string;
  signal?: AbortSignal;
  /** The worker's data directory for this workspace; default one under the system temp directory. */
  dataDir?: string;
}

/** An ExecutorContext like the one the activity wrapper builds, with a fresh call id unless one is given. */
export function makeExecutorContext(options: ExecutorContextOptions): ExecutorContext {
  const root = realpathSync(options.root);
  const callId = options.callId ?? `call_test_${++calls}`;
  const taskId = options.taskId ?? 'task-test';
  const paramsInput = abbreviateParams(options.input);
  const started = performance.now();
  return {
    root,
    request: {
      taskId,
      turn: 1,
      index: 0,
      callId,
      workspace: root,
      input: options.input,
      paramsInput,
      readState: options.readState,
    },
    context: { tool_call_id: callId, cwd: '.', params_input: paramsInput },
    signal: options.signal ?? new AbortController().signal,
    heartbeat: () => undefined,
    attempt: options.attempt ?? 1,
    activityKey: options.activityKey ?? `${taskId}/activity/${callId}`,
    outputDir: path.join(root, '.agent', 'tool-output', taskId),
    // Beside the workspace, never in it, as the worker's own data directory is.
    dataDir: options.dataDir ?? workspaceDataDirectory(path.join(os.tmpdir(), 'durable-agent-test-data'), root),
    elapsedMs: () => Math.round(performance.now() - started),
  };
}

/** Applies a result's read-state change to a store in place (what the workflow does after the activity). */
export function applyReadStateUpdate(store: ReadStateStore, update: ReadStateUpdate | undefined): ReadStateStore {
  if (!update) return store;
  if (update.entry === null) delete store[update.key];
  else store[update.key] = update.entry;
  return store;
}
