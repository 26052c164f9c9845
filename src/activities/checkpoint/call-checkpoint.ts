// Node: the checkpoints around a tool call that may change the workspace (docs/checkpoints.md). The tool has run by
// the time its checkpoint is taken, so a store outage is waited out rather than the call made again; any other
// failure leaves the call without a checkpoint, and the next one covers its changes.
import type { ContentKey } from '../../protocol/content-key.js';
import { countChanges } from '../../protocol/checkpoint.js';
import type { CheckpointWorkspaceInput } from '../../protocol/checkpoint.js';
import type { CallCheckpoint, CheckpointLogEntry, ToolActivityInput } from '../../protocol/tool-activity.js';
import type { ContentStore } from '../../store/content-store.js';
import { StoreOutageError } from '../../store/content-store.js';
import { currentActivityContext } from '../activity-context.js';
import { keepAlive } from '../keep-alive.js';
import { waitingOutStoreOutage } from '../store-wait.js';
import { realWorkspaceRoot } from '../workspace.js';
import type { Checkpointer } from './checkpointer.js';
import { compareCheckpoints } from './compare.js';
import { checkpointWithPath } from './path-update.js';

/**
 * The workspace before the call: the run's last checkpoint (the workflow records one before the run's first such call),
 * else one taken now, when that recording failed.
 */
export async function checkpointBefore(
  checkpointer: Checkpointer,
  request: ToolActivityInput,
): Promise<ContentKey | undefined> {
  const wanted = request.checkpoint;
  if (!wanted) return undefined;
  if (wanted.previous) return wanted.previous;
  return tolerated('before', () => take(checkpointer, request));
}

/**
 * The workspace after the call, and what changed since `before`; undefined when it could not be recorded. A call that
 * changed one known file (`changedPath`, links resolved: WriteFile, EditFile) updates `before` along that path alone,
 * unless the files may differ from `before` (`whole`: a call since left no checkpoint); any other is taken whole.
 */
export async function checkpointAfter(
  checkpointer: Checkpointer,
  store: ContentStore,
  request: ToolActivityInput,
  before: ContentKey | undefined,
  changedPath?: string,
): Promise<CallCheckpoint | undefined> {
  // Without the files before it, the call's changes cannot be told: the next call's checkpoint covers them.
  if (!request.checkpoint || !before) return undefined;
  return tolerated('after', async () => {
    const along = changedPath && !request.checkpoint!.whole;
    const after =
      (along ? await alongPath(store, request, before, changedPath) : undefined) ?? (await take(checkpointer, request));
    const changes = countChanges(await compareCheckpoints(store, before, after));
    const entry: CheckpointLogEntry = {
      checkpointLog: 1,
      prev: request.checkpoint!.log,
      step: request.turn,
      callId: request.callId,
      before,
      after,
    };
    const log = await waitingOutStoreOutage(() => store.put(JSON.stringify(entry)));
    return { before, after, changes, log };
  });
}

/** The `checkpointWorkspace` activity: a run's files before its first call that may change them. */
export function createCheckpointWorkspace(
  checkpointer: Checkpointer,
): (input: CheckpointWorkspaceInput) => Promise<ContentKey> {
  return (input) => record(checkpointer, input.workspace, input.ignore);
}

/** The update along the changed path; undefined (a whole checkpoint then) when it cannot settle it or fails. */
async function alongPath(
  store: ContentStore,
  request: ToolActivityInput,
  before: ContentKey,
  changedPath: string,
): Promise<ContentKey | undefined> {
  try {
    const root = await realWorkspaceRoot(request.workspace);
    return await waitingOutStoreOutage(() =>
      checkpointWithPath(store, root, before, changedPath, request.checkpoint?.ignore ?? []),
    );
  } catch (error) {
    if (error instanceof StoreOutageError) throw error;
    return undefined;
  }
}

function take(checkpointer: Checkpointer, request: ToolActivityInput): Promise<ContentKey> {
  return record(checkpointer, request.workspace, request.checkpoint?.ignore);
}

/** A checkpoint heartbeats like the call around it: a large workspace read for the first time takes seconds. */
async function record(
  checkpointer: Checkpointer,
  workspace: string,
  ignore: string[] | undefined,
): Promise<ContentKey> {
  const heartbeats = keepAlive(currentActivityContext(), { checkpoint: workspace });
  try {
    const root = await realWorkspaceRoot(workspace);
    const checkpoint = await waitingOutStoreOutage(() => checkpointer.checkpoint(root, ignore ? { ignore } : {}));
    return checkpoint.key;
  } finally {
    heartbeats.stop();
  }
}

async function tolerated<T>(which: string, work: () => Promise<T>): Promise<T | undefined> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof StoreOutageError) throw error;
    currentActivityContext()?.log.warn(`Workspace checkpoint ${which} the call was not recorded`, {
      error: error instanceof Error ? error.message : String(error),
    });
    return undefined;
  }
}
