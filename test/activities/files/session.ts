// A temp workspace plus a read-state store that behaves like the workflow's: each result's update is applied to it.
import { mkdtemp, realpath, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { ExecutorContext, ToolExecutor } from '../../../src/activities/executors/types.js';
import type { ToolActivityResult } from '../../../src/protocol/tool-activity.js';
import type { ReadStateStore } from '../../../src/protocol/read-state.js';
import { applyReadStateUpdate, makeExecutorContext } from '../executor-context.js';

/** Creates a real temp directory to serve as W. */
export async function makeWorkspace(prefix = 'file-tools-'): Promise<string> {
  return realpath(await mkdtemp(path.join(os.tmpdir(), prefix)));
}

/** Removes a temp workspace. */
export async function removeWorkspace(root: string): Promise<void> {
  await rm(root, { recursive: true, force: true });
}

/** Runs executors against one workspace and one store, the way a task's successive calls would. */
export class ToolSession {
  readState: ReadStateStore = {};

  constructor(readonly root: string) {}

  /** Runs one call and applies its read-state change. */
  async run(
    executor: ToolExecutor,
    input: Record<string, unknown>,
    options: { attempt?: number; activityKey?: string; readState?: ReadStateStore } = {},
  ): Promise<ToolActivityResult> {
    const context: ExecutorContext = makeExecutorContext({
      root: this.root,
      input,
      // A copy, as the activity gets the store by value through its input.
      readState: structuredClone(options.readState ?? this.readState),
      attempt: options.attempt,
      activityKey: options.activityKey,
    });
    const result = await executor(context);
    // The workflow's store must survive a JSON round trip (it is Temporal payload data).
    JSON.parse(JSON.stringify(result));
    applyReadStateUpdate(this.readState, result.readStateUpdate);
    return result;
  }
}
