// Node: where the file transport keeps live events: `<state dir>/live/<hex(workflowId)>/<runId>/<activityId>.<attempt>.ndjson`,
// directories 0700 and files 0600, so only the user who runs the worker and the CLI can read a model's output.
import path from 'node:path';
import type { LiveCallIdentity } from './live-event.js';

/** The transport's root below a state directory. */
export function liveRoot(stateDirectory: string): string {
  return path.join(stateDirectory, 'live');
}

/** The directory of one workflow id's events, all its runs. */
export function workflowDirectory(root: string, workflowId: string): string {
  return path.join(root, Buffer.from(workflowId, 'utf8').toString('hex'));
}

/** The file of one call attempt. */
export function attemptFile(root: string, call: LiveCallIdentity): string {
  return path.join(
    workflowDirectory(root, call.workflowId),
    segment(call.runId),
    `${segment(call.activityId)}.${call.attempt}.ndjson`,
  );
}

// Run and activity ids are Temporal's (UUIDs, counters) but a custom activity id may hold anything: what is not plainly
// a file name is written in hex, so no id can name a path outside its directory.
function segment(id: string): string {
  return /^[A-Za-z0-9_-]{1,128}$/.test(id) ? id : `x${Buffer.from(id, 'utf8').toString('hex').slice(0, 200)}`;
}
