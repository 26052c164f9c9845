// Pure: the progress lines a follower has not printed yet when its run has ended, read from the run's result. Asking a
// finished run instead means a worker replays its whole history to answer: hundreds of milliseconds before `run` can
// exit after a long run, seconds after a very long one.
import type { AgentResult, ProgressEntry } from '../protocol/run-report.js';

/**
 * The lines after `seen` when the result's last lines reach back to them (none new is an answer too); undefined when
 * lines are missing between the two, or the result carries none (a run that was cancelled or terminated): then only
 * asking the run tells them.
 */
export function unseenFinalProgress(result: AgentResult, seen: number): ProgressEntry[] | undefined {
  const last = result.lastProgress;
  if (!last || last.length === 0) return undefined;
  if (last[0]!.seq > seen + 1) return undefined;
  return last.filter((entry) => entry.seq > seen);
}
