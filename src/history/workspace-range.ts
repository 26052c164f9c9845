// Which checkpoints of a run's history show the files at a step's end, for `diff`. Every call that may change the workspace records the files before and after it; the files after step N are the last such
// call's at or before N, and "after step 0" is the files before the run's first one.
import type { ContentKey } from '../protocol/content-key.js';
import type { CallCheckpoint } from '../protocol/tool-activity.js';
import type { RunHistory } from './history-reader.js';

/** A step's end as files: the checkpoint, or null when no call up to it recorded one. */
export interface FilesAt {
  step: number;
  checkpoint: ContentKey | null;
}

/** The run's checkpoints in the order its calls made them, with their steps. */
export function checkpointsOf(run: RunHistory): { step: number; checkpoint: CallCheckpoint }[] {
  return run.steps.flatMap((step) =>
    step.tools.flatMap((tool) => (tool.checkpoint ? [{ step: step.step, checkpoint: tool.checkpoint }] : [])),
  );
}

/** The files after `step` (0: before the run's first change). */
export function filesAfter(run: RunHistory, step: number): FilesAt {
  const recorded = checkpointsOf(run);
  const upTo = recorded.filter((entry) => entry.step <= step);
  const checkpoint = upTo.at(-1)?.checkpoint.after ?? recorded[0]?.checkpoint.before ?? null;
  return { step, checkpoint };
}

/** What step `step` changed: the files before its first recording call and after its last; undefined when it had none. */
export function stepRange(run: RunHistory, step: number): { from: FilesAt; to: FilesAt } | undefined {
  const inStep = checkpointsOf(run).filter((entry) => entry.step === step);
  if (inStep.length === 0) return undefined;
  return {
    from: { step: step - 1, checkpoint: inStep[0]!.checkpoint.before },
    to: { step, checkpoint: inStep.at(-1)!.checkpoint.after },
  };
}

/** The last step of the run. */
export function lastStep(run: RunHistory): number {
  return run.steps.at(-1)?.step ?? 0;
}
